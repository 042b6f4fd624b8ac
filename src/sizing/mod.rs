//! Fabric sizing: cluster + switch + topology options → tiers, switch counts, links, ports.
//!
//! Pure: no I/O, no catalog access. Every rule below cites its source; the same rules, in the
//! order [`size`] applies them, are written up in `docs/sizing.md`, and the published reference
//! cases they reproduce are in `tests/data/sizing_cases.json`.
//!
//! Counting unit: a *port* or *link* here is one link at the link speed (a 64 × 800G switch run as
//! 128 × 400G has 128 ports). Switch counts, links and ports are totals across planes.

// Non-test code must not panic or overflow: enforced, not just promised.
#![cfg_attr(
    not(test),
    deny(
        clippy::arithmetic_side_effects,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

use crate::catalog::Text;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub mod design;
mod error;
pub mod feasibility;
pub mod oversubscription;
pub mod partial;
#[cfg(test)]
mod tests;
pub mod two_models;

pub use design::{Design, DesignChoice, alternatives, size_design};
pub use error::{SizingError, Why};
#[cfg(test)]
use oversubscription::smallest_divisor_at_least;
pub use oversubscription::{LeafSplit, leaf_split};
use oversubscription::{SplitCost, exact_splits, two_tier_spines};
pub use partial::PartialLeaf;
pub use two_models::{UplinkGroup, leaf_spine_of_two_models, line_cards};

/// One switch model, as sizing needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchSpec {
    /// Catalog SKU, quoted in error messages (e.g. `nvidia-qm9700`).
    pub sku: Text,
    /// Physical ports.
    pub ports: u32,
    /// Native speed of one physical port, Gb/s.
    pub port_speed_gbps: u32,
    /// Link speeds one port can run as (breakout), Gb/s: `[800, 400]` for a 64 × 800G switch that
    /// runs 128 × 400G, `[400, 200]` for QM9700.
    pub link_speeds_gbps: Vec<u32>,
    /// Physical ports per cage (2 for twin-port OSFP cages).
    pub ports_per_cage: u32,
}

/// The GPU cluster to connect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterSpec {
    /// GPUs in the cluster.
    pub gpus: u32,
    /// GPUs per node (server).
    pub gpus_per_node: u32,
    /// Scale-out NIC ports per node (R, the number of rails).
    pub nics_per_node: u32,
    /// Speed of one NIC port, Gb/s (split across planes).
    pub nic_speed_gbps: u32,
}

/// How to build the fabric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopologyOptions {
    /// Independent copies of the fabric (P); each NIC port is split into P links, one per plane.
    pub planes: u32,
    /// Leaf downlink : uplink bandwidth (1 = non-blocking), at least 1.
    pub oversubscription: f64,
    /// Rail-optimized: NIC *i* of every node goes to the rail-*i* leaf. Otherwise all of a
    /// node's NIC ports go to one leaf.
    pub rail_optimized: bool,
    /// Most switch tiers allowed: 2 (leaf–spine) or 3 (leaf–spine–core).
    pub max_tiers: u8,
    /// Servers per rack, when known: sizes the `tor_copper` design (absent: not sized).
    #[serde(default)]
    pub nodes_per_rack: Option<u32>,
}

/// A sized fabric. Switch counts, links and ports are totals across all planes unless the name
/// says `per_plane`.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Topology {
    /// The design built (`single_switch`, `dual_switch`, `collapsed_rails`, `rail_only`, `su_clos`, `tor_copper`); see
    /// docs/sizing.md "Designs".
    pub design: Design,
    /// Switch tiers built: 1 (one switch layer, no spine), 2 (leaf–spine) or 3
    /// (leaf–spine–core).
    pub tiers: u8,
    /// Independent fabric planes; every switch count is per-plane count × planes.
    pub planes: u32,
    /// Catalog SKU of the switch used in every tier (the leaves' when `spine_sku` is given).
    #[schema(value_type = String)]
    pub switch_sku: Text,
    /// Catalog SKU of the spines when they are another model than the leaves
    /// (`topology.spine_sku`, docs/sizing.md "A spine of another model"); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub spine_sku: Option<Text>,
    /// The spine's ports at the leaf–spine link speed, when the spines are another model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spine_radix: Option<u32>,
    /// Speed of one leaf–spine link, Gb/s, when it differs from `link_speed_gbps` (the leaves'
    /// faster uplink ports); absent: leaf–spine links run at the link speed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uplink_speed_gbps: Option<u32>,
    /// Speed of one link (NIC speed / planes), Gb/s.
    pub link_speed_gbps: u32,
    /// Effective switch radix k: ports per switch at the link speed (physical ports × breakout).
    pub radix: u32,
    /// Leaf ports facing nodes (d of the leaf split: k/2 at 1:1; oversubscribed, the exact
    /// split needing the fewest switches, docs/sizing.md "Oversubscription"), ports per leaf;
    /// for `dual_switch` the node ports of the fuller switch, for `tor_copper` the ports a rack
    /// leaf's servers use.
    pub leaf_downlinks: u32,
    /// Leaf ports facing spines (u), ports per leaf; d + u ≤ k (an exact ratio may leave ports
    /// unused). 0 when there is no spine tier; for `dual_switch` the inter-switch links.
    pub leaf_uplinks: u32,
    /// Oversubscription the leaves realise, d : u (1 without a spine tier). Equal to the asked
    /// ratio, or the nearest realisable one below it (the plan then warns naming both).
    pub oversubscription_realised: f64,
    /// Nodes (servers) = ceil(gpus / gpus_per_node).
    pub nodes: u32,
    /// Node-side link ends in one plane = nodes × NIC ports per node.
    pub endpoints_per_plane: u64,
    /// Nodes in one scalable unit (SU), the block the fabric is built in: the nodes one leaf
    /// serves (d when rail-optimized, floor(d / NIC ports) otherwise); a rack for
    /// `tor_copper`.
    pub scalable_unit_nodes: u32,
    /// Scalable units built = ceil(nodes / scalable_unit_nodes); the last may be partly filled.
    pub scalable_units: u32,
    /// Nodes one full leaf serves (capacity; equal to `scalable_unit_nodes` in the SU designs,
    /// the servers on one rack leaf for `tor_copper`). Traffic between GPUs of the same rail
    /// within this many nodes stays on one leaf.
    pub nodes_per_leaf: u32,
    /// The busiest leaf of a partly filled last scalable unit (or rack) when whole ones are
    /// built too: its servers have fewer same-rail peers under it, so more of their traffic
    /// crosses its uplinks, and the performance model times them as well (docs/model.md §4).
    /// Absent when every leaf is whole or there is one unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_leaf: Option<PartialLeaf>,
    /// Leaf switches, total across planes.
    pub leaf_switches: u64,
    /// Spine switches, total across planes.
    pub spine_switches: u64,
    /// Core switches (three tiers only, else 0), total across planes.
    pub core_switches: u64,
    /// Links (one cable or fibre each), totals across planes.
    pub links: Links,
    /// Port and cage usage, totals across planes.
    pub ports: PortUsage,
    /// Most endpoints per plane two tiers can connect: k·d (k²/2 at 1:1), d of the fullest
    /// split at the asked ratio (which may not be the one built).
    pub two_tier_max_endpoints_per_plane: u64,
    /// Most endpoints per plane three tiers can connect: k·⌊k/2⌋·d (k³/4 at 1:1), d as above;
    /// for a leaf–spine of two models, which has no third tier, its two-tier ceiling.
    pub three_tier_max_endpoints_per_plane: u64,
}

/// Links by tier, totals across planes. One link = one cable or fibre at the link speed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct Links {
    /// Node-to-leaf links = nodes × NIC ports per node × planes.
    pub node_leaf: u64,
    /// Leaf-to-spine links = leaves × leaf uplinks (every leaf uplink cabled, whole SUs).
    pub leaf_spine: u64,
    /// Spine-to-core links = spines × ⌊k/2⌋ (three tiers only, else 0).
    pub spine_core: u64,
}

/// Ports used and cages, totals across planes. Ports are counted at the link speed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct PortUsage {
    /// NIC ports on the nodes = node-side link ends (= `links.node_leaf`).
    pub nic_ports: u64,
    /// Leaf ports used (node-facing + spine-facing), all leaves.
    pub leaf_ports_used: u64,
    /// Spine ports used (leaf-facing + core-facing), all spines.
    pub spine_ports_used: u64,
    /// Core ports used, all core switches.
    pub core_ports_used: u64,
    /// Ports on all switches = switches × radix.
    pub switch_ports_total: u64,
    /// Cages with at least one port used, summed over switches (a switch-side module per used
    /// cage: the "fill every cage" BOM count when all ports are used).
    pub switch_cages_used: u64,
    /// Cages on all switches = switches × cages per switch.
    pub switch_cages_total: u64,
    /// The part of `switch_cages_used` on leaves.
    pub leaf_cages_used: u64,
    /// The part of `switch_cages_used` on spines.
    pub spine_cages_used: u64,
    /// The part of `switch_cages_used` on core switches.
    pub core_cages_used: u64,
}

// Checked arithmetic: every product a user can scale goes through these.
/// `v`, or an overflow of `what`. A `match`, not `ok_or`: `ok_or` builds the error (and drops
/// it, a call, since other variants own text) on every success — about 240 times a plan.
fn or_overflow<T>(v: Option<T>, what: &'static str) -> Result<T, SizingError> {
    match v {
        Some(v) => Ok(v),
        None => Err(SizingError::Overflow { what }),
    }
}
fn mul(a: u64, b: u64, what: &'static str) -> Result<u64, SizingError> {
    or_overflow(a.checked_mul(b), what)
}
fn add(a: u64, b: u64, what: &'static str) -> Result<u64, SizingError> {
    or_overflow(a.checked_add(b), what)
}
fn sub(a: u64, b: u64, what: &'static str) -> Result<u64, SizingError> {
    or_overflow(a.checked_sub(b), what)
}
/// What the last of `groups` groups holds when `total` fills them `per_group` at a time, in
/// order (the last leaf's cages, the last scalable unit's servers).
fn last_group(
    total: u64,
    groups: u64,
    per_group: u64,
    what: &'static str,
) -> Result<u64, SizingError> {
    sub(total, mul(sub(groups, 1, what)?, per_group, what)?, what)
}
fn ceil_div(a: u64, b: u64, what: &'static str) -> Result<u64, SizingError> {
    if b == 0 {
        return Err(SizingError::Overflow { what });
    }
    Ok(a.div_ceil(b))
}
fn to_u32(v: u64, what: &'static str) -> Result<u32, SizingError> {
    u32::try_from(v).map_err(|_| SizingError::Overflow { what })
}

/// [`leaf_split`], refused when it leaves a leaf no downlink or no uplink.
fn usable_split(k: u64, o: f64) -> Result<LeafSplit, SizingError> {
    let split = leaf_split(k, o);
    if split.downlinks == 0 || split.uplinks == 0 {
        return Err(SizingError::LeafSplit {
            radix: k,
            leaf_downlinks: split.downlinks,
            oversubscription: o,
        });
    }
    Ok(split)
}

/// Leaf downlinks for asked ratio `o` on a `k`-port leaf (see [`leaf_split`]).
#[cfg(test)]
fn leaf_downlinks(k: u64, o: f64) -> u64 {
    leaf_split(k, o).downlinks
}

/// Cages used on `switches` switches sharing `links` ports evenly (the first `links mod switches`
/// take one more), each also using `extra` ports, with `per_cage` ports per cage.
fn cages_even(links: u64, switches: u64, extra: u64, per_cage: u64) -> Result<u64, SizingError> {
    const W: &str = "cages";
    if switches == 0 {
        return Ok(0);
    }
    let q = or_overflow(links.checked_div(switches), W)?;
    let r = or_overflow(links.checked_rem(switches), W)?;
    let big = ceil_div(add(add(q, 1, W)?, extra, W)?, per_cage, W)?;
    let small = ceil_div(add(q, extra, W)?, per_cage, W)?;
    add(mul(r, big, W)?, mul(sub(switches, r, W)?, small, W)?, W)
}

/// What every design needs: validated inputs, link speed, effective radix, nodes, endpoints.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Basics {
    pub planes: u64,
    pub link: u32,
    pub k: u64,
    pub radix: u32,
    pub nodes: u64,
    pub r: u64,
    pub endpoints: u64,
    pub per_cage: u64,
    pub cages_per_switch: u64,
}

/// Steps 0–2 and 4 of [`size`], shared by every design.
pub(crate) fn basics(
    cluster: &ClusterSpec,
    switch: &SwitchSpec,
    opts: &TopologyOptions,
) -> Result<Basics, SizingError> {
    // ---- 0. Inputs.
    for (field, v) in [
        ("gpus", cluster.gpus),
        ("gpus_per_node", cluster.gpus_per_node),
        ("nics_per_node", cluster.nics_per_node),
        ("nic_speed_gbps", cluster.nic_speed_gbps),
        ("ports", switch.ports),
        ("port_speed_gbps", switch.port_speed_gbps),
        ("ports_per_cage", switch.ports_per_cage),
        ("planes", opts.planes),
    ] {
        if v == 0 {
            return Err(SizingError::Zero { field });
        }
    }
    let o = opts.oversubscription;
    if !o.is_finite() || o < 1.0 {
        return Err(SizingError::Oversubscription { value: o });
    }
    if !(2..=3).contains(&opts.max_tiers) {
        return Err(SizingError::MaxTiers {
            value: opts.max_tiers,
        });
    }

    // ---- 1. Link speed per plane = NIC speed / P (sizing.md "Plane": each GPU's bandwidth is
    // split into P links, one per plane; B300 on Spectrum-X: 800G = 2 planes of 400G).
    let planes = u64::from(opts.planes);
    let link = match cluster.nic_speed_gbps.checked_div(opts.planes) {
        Some(link) if cluster.nic_speed_gbps.is_multiple_of(opts.planes) => link,
        _ => {
            return Err(SizingError::PlanesDoNotDivideNicSpeed {
                nic_speed_gbps: cluster.nic_speed_gbps,
                planes: opts.planes,
            });
        }
    };

    // ---- 2. Effective radix k = ports × breakout (sizing.md "Breakout": 64 × 800G run as
    // 128 × 400G), valid only at a listed link speed that divides the port speed.
    let unsupported = || SizingError::UnsupportedLinkSpeed {
        link_speed_gbps: link,
        switch_sku: switch.sku.clone(),
        link_speeds_gbps: switch.link_speeds_gbps.clone(),
    };
    let breakout = match switch.port_speed_gbps.checked_div(link) {
        Some(b)
            if b > 0
                && switch.link_speeds_gbps.contains(&link)
                && switch.port_speed_gbps.is_multiple_of(link) =>
        {
            u64::from(b)
        }
        _ => return Err(unsupported()),
    };
    let k = mul(u64::from(switch.ports), breakout, "radix")?;
    let radix = to_u32(k, "radix")?;

    // ---- 4. Nodes and endpoints. nodes = ceil(gpus / gpus_per_node); R = NIC ports per node;
    // each plane sees R link ends per node.
    let r = u64::from(cluster.nics_per_node);
    let nodes = ceil_div(
        u64::from(cluster.gpus),
        u64::from(cluster.gpus_per_node),
        "nodes",
    )?;
    let endpoints = mul(nodes, r, "endpoints per plane")?;
    let per_cage = mul(u64::from(switch.ports_per_cage), breakout, "cages")?;
    let cages_per_switch = ceil_div(
        u64::from(switch.ports),
        u64::from(switch.ports_per_cage),
        "cages",
    )?;
    Ok(Basics {
        planes,
        link,
        k,
        radix,
        nodes,
        r,
        endpoints,
        per_cage,
        cages_per_switch,
    })
}

/// Sizes the scale-out fabric for `cluster` built from `switch` (same model in every tier) with
/// the scalable-unit Clos design of NVIDIA's SuperPOD reference architectures (`su_clos`).
///
/// Rules and sources: see the module docs and `docs/sizing.md`. Never panics; every invalid or
/// unbuildable request is a [`SizingError`].
pub fn size(
    cluster: &ClusterSpec,
    switch: &SwitchSpec,
    opts: &TopologyOptions,
) -> Result<Topology, SizingError> {
    let b = basics(cluster, switch, opts)?;
    let o = opts.oversubscription;

    // ---- 3. Leaf split (sizing.md "Oversubscription"): the fullest exact d : u when the radix
    // allows it, else the nearest ratio below the asked one. The fullest split decides whether
    // the cluster fits and in how many tiers (it needs the fewest leaves). Oversubscribed, every
    // other exact split that needs no more leaves than 1:1 is sized too, in the same tiers, and
    // the one needing the fewest switches is built ([`SplitCost`] order). 1:1 has one split.
    let fullest = usable_split(b.k, o)?;
    let mut best = size_split(cluster, switch, opts, &b, fullest, fullest.downlinks)?;
    let mut best_cost = su_cost(&best);
    let non_blocking_leaves = su_leaves(&b, opts.rail_optimized, b.k / 2);
    for split in exact_splits(b.k, o).skip(1) {
        // d falls split by split and the leaves grow: stop at the first with more than 1:1.
        if su_leaves(&b, opts.rail_optimized, split.downlinks) > non_blocking_leaves {
            break;
        }
        let Ok(t) = size_split(cluster, switch, opts, &b, split, fullest.downlinks) else {
            continue;
        };
        let cost = su_cost(&t);
        if t.tiers == best.tiers && cost < best_cost {
            (best, best_cost) = (t, cost);
        }
    }
    Ok(best)
}

/// Leaves per plane of the SU Clos with `d` leaf downlinks (step 5), `u64::MAX` when a node
/// does not fit a leaf.
pub(crate) fn su_leaves(b: &Basics, rail_optimized: bool, d: u64) -> u64 {
    let leaves = if rail_optimized {
        b.nodes.div_ceil(d.max(1)).checked_mul(b.r)
    } else {
        d.checked_div(b.r)
            .filter(|&per_leaf| per_leaf > 0)
            .map(|per_leaf| b.nodes.div_ceil(per_leaf))
    };
    leaves.unwrap_or(u64::MAX)
}

/// The [`SplitCost`] of a sized SU Clos.
fn su_cost(t: &Topology) -> SplitCost {
    SplitCost::new(
        t.leaf_switches
            .saturating_add(t.spine_switches)
            .saturating_add(t.core_switches),
        t.links.leaf_spine,
        u64::from(t.leaf_downlinks),
    )
}

/// Steps 5–9 of [`size`] for one leaf split; the tier ceilings use `ceiling_d`, the downlinks
/// of the fullest split (what the switch can connect at the asked ratio).
fn size_split(
    cluster: &ClusterSpec,
    switch: &SwitchSpec,
    opts: &TopologyOptions,
    b: &Basics,
    split: LeafSplit,
    ceiling_d: u64,
) -> Result<Topology, SizingError> {
    let (planes, link, k) = (b.planes, b.link, b.k);
    let (radix, nodes, endpoints) = (b.radix, b.nodes, b.endpoints);
    let (d, u) = (split.downlinks, split.uplinks);

    let su = scalable_units(cluster, opts, b, d)?;
    let (su_nodes, sus, leaves) = (su.su_nodes, su.sus, su.leaves);
    let (tiers, two_max, three_max) =
        tiers_within_ceilings(switch, opts, b, (split, ceiling_d), &su)?;
    let (leaf_spine, spines, cores, spine_core) = spines_and_core(tiers, leaves, u, k)?;

    // ---- 8. Totals across planes (sizing.md "Plane": every count is per plane × P).
    let node_leaf = mul(endpoints, planes, "node-leaf links")?;
    let switches = add(add(leaves, spines, "switches")?, cores, "switches")?;

    // ---- 9. Cages (sizing.md "Cables and optics"): a cage holds ports_per_cage physical ports,
    // each `breakout` links. Leaves fill SU by SU; the last SU's leaves carry the remainder. A
    // whole SU's leaf uses its node links and uplinks, not necessarily all k ports (48 + 6 of
    // 64 at 8:1: 27 cages, not 32).
    let (per_cage, cages_per_switch) = (b.per_cage, b.cages_per_switch);
    let last_su_nodes = last_group(nodes, sus, su_nodes, "cages")?;
    let leaf_cages = su_leaf_cages(&su, last_su_nodes, u, per_cage)?;
    let half = k / 2;
    let spine_up = if tiers == 3 { half } else { 0 };
    let spine_cages = cages_even(leaf_spine, spines, spine_up, per_cage)?;
    let core_cages = cages_even(spine_core, cores, 0, per_cage)?;
    let cages_used = add(add(leaf_cages, spine_cages, "cages")?, core_cages, "cages")?;

    let partial_leaf = su_partial_leaf(nodes, &su, last_su_nodes, u)?;
    let total = |v: u64, what: &'static str| mul(v, planes, what);
    Ok(Topology {
        design: Design::SuClos,
        tiers,
        planes: opts.planes,
        switch_sku: switch.sku.clone(),
        spine_sku: None,
        spine_radix: None,
        uplink_speed_gbps: None,
        link_speed_gbps: link,
        radix,
        leaf_downlinks: to_u32(d, "leaf downlinks")?,
        leaf_uplinks: to_u32(u, "leaf uplinks")?,
        oversubscription_realised: split.realised(),
        nodes: to_u32(nodes, "nodes")?,
        endpoints_per_plane: endpoints,
        scalable_unit_nodes: to_u32(su_nodes, "scalable unit")?,
        scalable_units: to_u32(sus, "scalable units")?,
        nodes_per_leaf: to_u32(su_nodes, "nodes per leaf")?,
        partial_leaf,
        leaf_switches: total(leaves, "leaves")?,
        spine_switches: total(spines, "spines")?,
        core_switches: total(cores, "core switches")?,
        links: Links {
            node_leaf,
            leaf_spine: total(leaf_spine, "leaf-spine links")?,
            spine_core: total(spine_core, "spine-core links")?,
        },
        ports: PortUsage {
            nic_ports: node_leaf,
            leaf_ports_used: total(add(endpoints, leaf_spine, "ports")?, "ports")?,
            spine_ports_used: total(add(leaf_spine, spine_core, "ports")?, "ports")?,
            core_ports_used: total(spine_core, "ports")?,
            switch_ports_total: total(mul(switches, k, "ports")?, "ports")?,
            switch_cages_used: total(cages_used, "cages")?,
            switch_cages_total: total(mul(switches, cages_per_switch, "cages")?, "cages")?,
            leaf_cages_used: total(leaf_cages, "cages")?,
            spine_cages_used: total(spine_cages, "cages")?,
            core_cages_used: total(core_cages, "cages")?,
        },
        two_tier_max_endpoints_per_plane: two_max,
        three_tier_max_endpoints_per_plane: three_max,
    })
}

/// Step 5 of [`size`] for one leaf split: the scalable units and the leaves they need.
struct ScalableUnits {
    /// Nodes of one SU.
    su_nodes: u64,
    /// Leaves of one SU per plane.
    leaves_per_su: u64,
    /// Links from one node to its leaf.
    links_per_node_on_leaf: u64,
    /// SUs, the last possibly partly filled.
    sus: u64,
    /// Leaves per plane.
    leaves: u64,
}

/// Step 5 of [`size`] with `d` leaf downlinks.
fn scalable_units(
    cluster: &ClusterSpec,
    opts: &TopologyOptions,
    b: &Basics,
    d: u64,
) -> Result<ScalableUnits, SizingError> {
    let (nodes, r) = (b.nodes, b.r);
    // ---- 5. Scalable unit and leaves per plane (sizing.md "Leaves", NVIDIA SuperPOD RA: "the
    // fabric should be designed to support the full SU, including leaf switches and leaf-spine
    // cables"). Rail-optimized: an SU is the d nodes one rail leaf serves, with R leaves per SU
    // per plane (QM9700 at 1:1: 32 nodes, 8 leaves = the DGX SU). Otherwise all R ports of a node
    // go to one leaf: an SU is that leaf's floor(d/R) nodes, one leaf per SU per plane.
    let (su_nodes, leaves_per_su, links_per_node_on_leaf) = if opts.rail_optimized {
        (d, r, 1)
    } else {
        let per_leaf = d.checked_div(r).unwrap_or(0);
        if per_leaf == 0 {
            return Err(SizingError::NodeExceedsLeaf {
                nics_per_node: cluster.nics_per_node,
                leaf_downlinks: d,
            });
        }
        (per_leaf, 1, r)
    };
    let sus = ceil_div(nodes, su_nodes, "scalable units")?;
    let leaves = mul(sus, leaves_per_su, "leaves")?;
    Ok(ScalableUnits {
        su_nodes,
        leaves_per_su,
        links_per_node_on_leaf,
        sus,
        leaves,
    })
}

/// Step 6 of [`size`]: the tiers the SUs' leaves need, within the ceilings of `max_tiers`;
/// returns `(tiers, two-tier ceiling, three-tier ceiling)` in endpoints per plane.
fn tiers_within_ceilings(
    switch: &SwitchSpec,
    opts: &TopologyOptions,
    b: &Basics,
    (split, ceiling_d): (LeafSplit, u64),
    su: &ScalableUnits,
) -> Result<(u8, u64, u64), SizingError> {
    let (link, k, endpoints) = (b.link, b.k, b.endpoints);
    let (d, u) = (split.downlinks, split.uplinks);
    let (sus, su_nodes, leaves) = (su.sus, su.su_nodes, su.leaves);
    // ---- 6. Ceilings per plane. Two tiers: every spine reaches every leaf, so at most k
    // leaves: E_max = k·d (k²/2 at 1:1; sizing.md "Two-tier ceiling"). Three tiers: at most k
    // pods (a core switch reaches every pod) of ⌊k/2⌋ leaves (a spine has ⌊k/2⌋ downlinks):
    // k·⌊k/2⌋·d endpoints = k³/4 at 1:1 (Al-Fares et al., SIGCOMM 2008).
    let half = k / 2;
    let max_leaves_2 = k;
    let max_leaves_3 = mul(k, half, "three-tier ceiling")?;
    let two_max = mul(k, ceiling_d, "two-tier ceiling")?;
    let three_max = mul(max_leaves_3, ceiling_d, "three-tier ceiling")?;
    let (max_leaves, ceiling, formula) = if opts.max_tiers == 2 {
        let f = if d == half && u == half {
            "k^2/2"
        } else {
            "k*d"
        };
        (max_leaves_2, two_max, f)
    } else {
        let f = if d == half && u == half {
            "k^3/4"
        } else {
            "k^2*d/2"
        };
        (max_leaves_3, three_max, f)
    };
    if leaves > max_leaves {
        let what = if d == half && u == half {
            format!("k = {k} ports of {link}G on {}", switch.sku)
        } else {
            format!(
                "k = {k} ports of {link}G and d = {ceiling_d} leaf downlinks on {}",
                switch.sku
            )
        };
        return Err(if endpoints > ceiling {
            SizingError::ExceedsTierCeiling {
                max_tiers: opts.max_tiers,
                endpoints_per_plane: endpoints,
                ceiling_endpoints_per_plane: ceiling,
                formula: format!("{formula} with {what}"),
            }
        } else {
            let f = if opts.max_tiers == 2 { "k" } else { "k^2/2" };
            SizingError::LeavesExceedTierLimit {
                max_tiers: opts.max_tiers,
                leaves_per_plane: leaves,
                max_leaves_per_plane: max_leaves,
                scalable_units: sus,
                scalable_unit_nodes: su_nodes,
                formula: format!("{f} with {what}"),
            }
        });
    }
    let tiers: u8 = if leaves <= max_leaves_2 { 2 } else { 3 };
    Ok((tiers, two_max, three_max))
}

/// Step 7 of [`size`]: `(leaf-spine links, spines, core switches, spine-core links)` per plane.
fn spines_and_core(
    tiers: u8,
    leaves: u64,
    u: u64,
    k: u64,
) -> Result<(u64, u64, u64, u64), SizingError> {
    let half = k / 2;
    // ---- 7. Spines and core per plane.
    // Links: leaf-spine = leaves × u (every uplink cabled, whole SUs); spine-core = spines × k/2
    // (sizing.md "Links").
    let leaf_spine = mul(leaves, u, "leaf-spine links")?;
    let (spines, cores, spine_core) = if tiers == 2 {
        // Two tiers: smallest S ≥ ceil(L·u/k) dividing u, so each leaf has the same number of
        // links to every spine (sizing.md "Two tiers"; H100 3 SU: 12 → 16).
        let s = or_overflow(two_tier_spines(leaves, u, k), "spines")?;
        (s, 0, 0)
    } else {
        // Three tiers: spines are non-blocking (⌊k/2⌋ down, ⌊k/2⌋ up), so spines =
        // ceil(L·u / ⌊k/2⌋) — NVIDIA's "spines = leaves" at 1:1 where u = k/2 — and
        // core = ceil(spines·⌊k/2⌋ / k) (NVIDIA: spines·(k/2)/k). Oversubscription stays at the
        // leaf, the only tier it is specified for.
        let s = ceil_div(leaf_spine, half, "spines")?;
        let sc = mul(s, half, "spine-core links")?;
        (s, ceil_div(sc, k, "core switches")?, sc)
    };
    Ok((leaf_spine, spines, cores, spine_core))
}

/// The cages of a plane's leaves (step 9 of [`size`]): whole SUs' leaves, then the last SU's
/// with `last_su_nodes` nodes.
fn su_leaf_cages(
    su: &ScalableUnits,
    last_su_nodes: u64,
    u: u64,
    per_cage: u64,
) -> Result<u64, SizingError> {
    let (sus, su_nodes, leaves_per_su) = (su.sus, su.su_nodes, su.leaves_per_su);
    let links_per_node_on_leaf = su.links_per_node_on_leaf;
    let full_leaves = mul(sub(sus, 1, "cages")?, leaves_per_su, "cages")?;
    let full_leaf_ports = add(mul(su_nodes, links_per_node_on_leaf, "cages")?, u, "cages")?;
    add(
        mul(
            full_leaves,
            ceil_div(full_leaf_ports, per_cage, "cages")?,
            "cages",
        )?,
        mul(
            leaves_per_su,
            ceil_div(
                add(
                    mul(last_su_nodes, links_per_node_on_leaf, "cages")?,
                    u,
                    "cages",
                )?,
                per_cage,
                "cages",
            )?,
            "cages",
        )?,
        "cages",
    )
}

/// The busiest leaf of a partly filled last SU beside whole ones (its leaves hold the rest of
/// the nodes); none when every SU is whole or there is one.
fn su_partial_leaf(
    nodes: u64,
    su: &ScalableUnits,
    last_su_nodes: u64,
    u: u64,
) -> Result<Option<PartialLeaf>, SizingError> {
    let (sus, su_nodes) = (su.sus, su.su_nodes);
    Ok(if sus > 1 && last_su_nodes < su_nodes {
        partial::busiest(
            nodes,
            [partial::Candidate::whole_rails(
                mul(sub(sus, 1, "servers")?, su_nodes, "servers")?,
                last_su_nodes,
                su.links_per_node_on_leaf,
                u,
            )?],
        )?
    } else {
        None
    })
}
