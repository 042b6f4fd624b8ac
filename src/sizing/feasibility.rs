//! What would make an unbuildable fabric buildable (docs/sizing.md "Feasibility"): more planes,
//! a larger-radix switch, or fewer GPUs. Pure: the plan passes the candidate switches in.

use super::{ClusterSpec, Design, SizingError, SwitchSpec, TopologyOptions, size_design};

/// True when the error says the fabric cannot be built for this request (over a ceiling, no
/// design fits, the switch cannot run the link speed), as opposed to an invalid request.
pub fn is_infeasibility(e: &SizingError) -> bool {
    matches!(
        e,
        SizingError::ExceedsTierCeiling { .. }
            | SizingError::LeavesExceedTierLimit { .. }
            | SizingError::UnsupportedLinkSpeed { .. }
            | SizingError::NodeExceedsLeaf { .. }
            | SizingError::LeafSplit { .. }
            | SizingError::DesignDoesNotFit { .. }
    )
}

/// True when a design other than `rail_only` can be built: sized one at a time in
/// [`Design::ALL`] order, stopping at the first that fits (usually `su_clos`, the first).
fn fits(cluster: &ClusterSpec, switch: &SwitchSpec, opts: &TopologyOptions) -> bool {
    Design::ALL
        .iter()
        .any(|&d| opts_accepts(d) && size_design(cluster, switch, opts, d).is_ok())
}

fn opts_accepts(d: Design) -> bool {
    d != Design::RailOnly
}

/// Suggestions, most direct first: the fewest planes (≤ 8) that fit with the same switch and
/// that `nic_splits` says the NIC's cages can carry (a module with that many links per cage
/// exists: the caller knows the catalog); each `other_switches` entry that fits; three tiers
/// when two were asked; the most GPUs that fit.
pub fn suggestions(
    cluster: &ClusterSpec,
    switch: &SwitchSpec,
    opts: &TopologyOptions,
    other_switches: &[SwitchSpec],
    nic_splits: &dyn Fn(u32) -> bool,
) -> Vec<String> {
    let mut out = Vec::new();
    for planes in 2..=8u32 {
        if planes <= opts.planes
            || !cluster.nic_speed_gbps.is_multiple_of(planes)
            || !nic_splits(planes)
        {
            continue;
        }
        let o = TopologyOptions {
            planes,
            ..opts.clone()
        };
        if fits(cluster, switch, &o) {
            out.push(format!(
                "split each {}G NIC port into {planes} planes of {}G (topology.planes = {planes}) on {}",
                cluster.nic_speed_gbps,
                cluster.nic_speed_gbps.checked_div(planes).unwrap_or(0),
                switch.sku
            ));
            break;
        }
    }
    for sw in other_switches {
        if sw.sku != switch.sku && fits(cluster, sw, opts) {
            out.push(format!(
                "a larger-radix switch: topology.switch_sku = {} ({} x {}G)",
                sw.sku, sw.ports, sw.port_speed_gbps
            ));
        }
    }
    if opts.max_tiers < 3 {
        let o = TopologyOptions {
            max_tiers: 3,
            ..opts.clone()
        };
        if fits(cluster, switch, &o) {
            out.push("allow three tiers (topology.max_tiers = 3)".to_string());
        }
    }
    // Most GPUs that fit: bisect on whole nodes (feasibility is monotone in cluster size).
    let gpn = cluster.gpus_per_node.max(1);
    let mut lo: u32 = 0;
    let mut hi: u32 = cluster.gpus.div_ceil(gpn);
    while hi.saturating_sub(lo) > 1 {
        let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
        let c = ClusterSpec {
            gpus: mid.saturating_mul(gpn),
            ..cluster.clone()
        };
        if fits(&c, switch, opts) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    if lo > 0 {
        out.push(format!(
            "at most {} GPUs ({lo} nodes of {gpn}) on {} with these options",
            lo.saturating_mul(gpn),
            switch.sku
        ));
    }
    out
}
