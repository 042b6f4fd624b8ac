//! Designs: the ways a fabric can connect a cluster, each sized by its own rule
//! (docs/sizing.md "Designs"). The plan sizes every design that fits, prices each and keeps the
//! cheapest that meets the request; this module only sizes.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::oversubscription::{LeafSplit, SplitCost, exact_splits, leaf_split, two_tier_spines};
use super::partial::{self, PartialLeaf};
use super::{
    Basics, ClusterSpec, Links, PortUsage, SizingError, SwitchSpec, Topology, TopologyOptions, Why,
    add, basics, ceil_div, last_group, mul, size, su_leaves, sub, to_u32, usable_split,
};

/// Declares the designs once: [`Design`] (with `ALL` in tie-break order and the wire names)
/// and [`DesignChoice`] (`auto` or one of them).
macro_rules! designs {
    ($( $(#[doc = $doc:expr])* $v:ident => $name:literal, )+) => {
        /// A fabric design.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum Design {
            $( $(#[doc = $doc])* $v, )+
        }

        impl Design {
            /// Every design, in tie-break order (fewest tiers first).
            pub const ALL: &'static [Design] = &[$(Design::$v),+];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Design::$v => $name,)+
                }
            }
        }

        /// `topology.design` in a request: `auto` (the cheapest design that meets the
        /// request) or one named design.
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum DesignChoice {
            #[default]
            Auto,
            $( $(#[doc = $doc])* $v, )+
        }

        impl DesignChoice {
            /// The named design, `None` for `auto`.
            pub fn named(self) -> Option<Design> {
                match self {
                    DesignChoice::Auto => None,
                    $(DesignChoice::$v => Some(Design::$v),)+
                }
            }
        }
    };
}

designs! {
    /// One switch per plane takes every NIC port (no spine): when NIC ports per plane ≤ radix.
    /// Never chosen by `auto` when it is the whole fabric (one switch, one plane): no published
    /// design puts a cluster on a single switch (docs/sizing.md, "dual_switch").
    SingleSwitch => "single_switch",
    /// Two switches per plane, a node's NIC ports alternating between them (rail i on switch
    /// i mod 2), joined by an inter-switch bundle sized for the asked ratio (1:1 = as many
    /// links as node ports per switch); no spine. NVIDIA DGX BasePOD (RA-11127-001, Table 4.2:
    /// 2 × QM9700 for 4 and 8 DGX nodes) and the Enterprise RA 2-8-9-400 (2 × SN5600 for 4–12
    /// HGX nodes, 16 × 400G ISL per 4 nodes).
    DualSwitch => "dual_switch",
    /// Below one scalable unit: several rails share a leaf (every node's rails i..j on one
    /// leaf), leaves joined by spines. A rail-optimized layout: `auto` does not build it when
    /// the request is not rail-optimized.
    CollapsedRails => "collapsed_rails",
    /// One leaf per rail and no spine; traffic between rails crosses NVLink inside the node
    /// (PXN). Only when asked: it does not give full bisection between rails.
    RailOnly => "rail_only",
    /// NVIDIA SuperPOD scalable-unit leaf–spine(–core) Clos.
    SuClos => "su_clos",
    /// Leaves of the fabric's switch under modular chassis spines (line cards as the links
    /// need them) in two tiers: sized where `su_clos` needs a third tier, or when named. See
    /// docs/sizing.md "Chassis spine".
    ChassisSpine => "chassis_spine",
    /// A leaf in each rack (top of rack) takes all NIC ports of the rack's servers over copper
    /// (no NIC-side optics); leaves joined by spines over optics (two tiers). Sized only when
    /// the request gives `topology.nodes_per_rack`. Meta's RoCE "AI Zone": rack switches with
    /// DAC to the GPUs, optics to the cluster switches (SIGCOMM 2024).
    TorCopper => "tor_copper",
}

impl DesignChoice {
    /// Whether a design sized as `t` meets a request with this choice: a named design always
    /// (it was asked for). Under `auto`, every design but:
    /// - rail-only (no full bisection between rails);
    /// - a whole fabric on one switch (one switch's failure stops every node; the published
    ///   small designs use two), unless every server has a single NIC port per plane: no server
    ///   can then be split over two switches, and the alternative was a leaf under a spine
    ///   that carries nothing;
    /// - top-of-rack copper when the request keeps rail-optimized wiring (its layout puts all
    ///   of a server's ports on one leaf, which `rail_optimized: false` asks for);
    /// - collapsed rails when the request is not rail-optimized: its layout is rail-major (a
    ///   rail's servers together on a leaf, a server's ports on several leaves), the opposite
    ///   of what `rail_optimized: false` asks for. Packed node-major instead (a server's ports
    ///   on one leaf, ⌊d/R⌋ servers a leaf) it would be the `su_clos` the request sizes.
    pub fn accepts(self, t: &Topology, rail_optimized: bool) -> bool {
        match self.named() {
            Some(d) => d == t.design,
            None => {
                t.design != Design::RailOnly
                    && !(t.design == Design::TorCopper && rail_optimized)
                    && (t.design != Design::CollapsedRails || rail_optimized)
                    && (t
                        .leaf_switches
                        .saturating_add(t.spine_switches)
                        .saturating_add(t.core_switches)
                        > 1
                        || t.endpoints_per_plane <= u64::from(t.nodes))
            }
        }
    }
}

/// Sizes every design of one switch model for the cluster, in [`Design::ALL`] order (the
/// chassis spine, of two models, is sized apart).
pub fn alternatives(
    cluster: &ClusterSpec,
    switch: &SwitchSpec,
    opts: &TopologyOptions,
) -> Vec<(Design, Result<Topology, SizingError>)> {
    Design::ALL
        .iter()
        .filter(|&&d| d != Design::ChassisSpine)
        .map(|&d| (d, size_design(cluster, switch, opts, d)))
        .collect()
}

/// Sizes one design.
pub fn size_design(
    cluster: &ClusterSpec,
    switch: &SwitchSpec,
    opts: &TopologyOptions,
    design: Design,
) -> Result<Topology, SizingError> {
    let attempt = || -> Result<Attempt<'_>, SizingError> {
        Ok(Attempt {
            b: basics(cluster, switch, opts)?,
            switch,
            opts,
            design,
        })
    };
    match design {
        Design::SuClos => size(cluster, switch, opts),
        Design::SingleSwitch | Design::RailOnly => single_layer(&attempt()?),
        Design::CollapsedRails => collapsed_rails(&attempt()?),
        Design::DualSwitch => dual_switch(&attempt()?),
        Design::TorCopper => tor_copper(&attempt()?),
        // Its spine is another model: `two_models::leaf_spine_of_two_models` sizes it.
        Design::ChassisSpine => Err(SizingError::DesignDoesNotFit {
            design,
            why: Why::Text("a chassis spine is sized with its chassis".to_string()),
        }),
    }
}

/// One design being sized by its rule: the cluster's basics on the switch, the options, and
/// the design, which every "does not fit" names.
struct Attempt<'a> {
    b: Basics,
    switch: &'a SwitchSpec,
    opts: &'a TopologyOptions,
    design: Design,
}

impl Attempt<'_> {
    fn not_fit(&self, why: Why) -> SizingError {
        SizingError::DesignDoesNotFit {
            design: self.design,
            why,
        }
    }
}

fn ceilings(b: &Basics, o: f64) -> Result<(u64, u64), SizingError> {
    let d = leaf_split(b.k, o).downlinks;
    let two = mul(b.k, d, "two-tier ceiling")?;
    let three = mul(
        mul(b.k, b.k / 2, "three-tier ceiling")?,
        d,
        "three-tier ceiling",
    )?;
    Ok((two, three))
}

/// One switch layer, no spine. `single_switch`: one switch per plane takes all NIC ports
/// (endpoints ≤ k). `rail_only`: one switch per rail per plane takes that rail of every node
/// (nodes ≤ k).
fn single_layer(at: &Attempt<'_>) -> Result<Topology, SizingError> {
    let b = &at.b;
    let single = at.design == Design::SingleSwitch;
    // Ports each switch of the layer takes: every NIC port, or one rail of every node.
    let (switches_per_plane, ports_per_switch) = if single {
        (1, b.endpoints)
    } else {
        (b.r, b.nodes)
    };
    if ports_per_switch > b.k {
        let (k, sku, link) = (b.k, at.switch.sku.clone(), b.link);
        return Err(at.not_fit(if single {
            Why::PortsExceedOneSwitch {
                endpoints: ports_per_switch,
                k,
                sku,
                link,
            }
        } else {
            Why::NodesExceedRailSwitch {
                nodes: ports_per_switch,
                k,
                sku,
                link,
            }
        }));
    }
    let cages = mul(
        switches_per_plane,
        ceil_div(ports_per_switch, b.per_cage, "cages")?,
        "cages",
    )?;
    assemble(
        at,
        PerPlane {
            tiers: 1,
            leaves: switches_per_plane,
            spines: 0,
            leaf_downlinks: u64::from(b.radix),
            leaf_uplinks: 0,
            realised: 1.0,
            su_nodes: b.nodes,
            sus: 1,
            nodes_per_leaf: b.nodes,
            partial_leaf: None,
            leaf_spine: 0,
            leaf_ports: b.endpoints,
            spine_ports: 0,
            leaf_cages: cages,
            spine_cages: 0,
        },
    )
}

/// Rails collapsed onto shared leaves in the partly filled scalable unit: whole SUs get their R
/// rail leaves as in `su_clos`; the last, partial SU of `rem` nodes (rem < d) gets
/// ⌈rem·R / d⌉ leaves instead of R, its ports packed rail-major (a leaf takes ⌊d / rem⌋ whole
/// rails when rem ≤ d/2; otherwise rails are packed in order and one can run over two or more
/// adjacent leaves: 1,536 H100 at 8:1 on 128-port Ethernet puts rail 6 as 32 + 32 + 16). Below
/// one SU that is the
/// whole fabric. Leaves are joined by the two-tier spine rule (two tiers only: at most k
/// leaves). Not applicable when the cluster is whole SUs (identical to `su_clos`) or fits one
/// switch.
///
/// The leaf split: the fullest one decides whether the design applies, as in `su_clos`;
/// oversubscribed, every exact split of [`exact_splits`] that needs no more leaves than the SU
/// Clos at 1:1 is weighed by its switches ([`SplitCost`]), a split that makes whole SUs counting as the
/// `su_clos` it then is, and the cheapest is built. When that is a whole-SU split the design
/// does not apply (`su_clos` is it).
fn collapsed_rails(at: &Attempt<'_>) -> Result<Topology, SizingError> {
    let b = &at.b;
    let o = at.opts.oversubscription;
    let fullest = usable_split(b.k, o)?;
    let first = collapsed_leaves(b, fullest)?;
    let whole = |split: LeafSplit| {
        at.not_fit(Why::WholeScalableUnits {
            nodes: b.nodes,
            d: split.downlinks,
        })
    };
    if let Some(l) = &first
        && (l.count < 2 || l.count > b.k)
    {
        // One leaf or beyond two tiers: the errors of the two-tier rule, as with one split.
        return two_tier(at, fullest, l.clone());
    }
    let mut best: Option<(SplitCost, LeafSplit, Option<Leaves>)> = None;
    // Leaves are ⌈endpoints / d⌉ (whole SUs or not): they grow as d falls; stop at the first
    // split that needs more than the SU Clos at 1:1 (the bound `su_clos` uses, so every split
    // it weighs is weighed here too, with no more leaves).
    let non_blocking_leaves = su_leaves(b, at.opts.rail_optimized, b.k / 2);
    let candidates = exact_splits(b.k, o)
        .skip(1)
        .take_while(|s| b.endpoints.div_ceil(s.downlinks.max(1)) <= non_blocking_leaves)
        .filter_map(|s| Some((s, collapsed_leaves(b, s).ok()?)));
    for (split, leaves) in std::iter::once((fullest, first.clone())).chain(candidates) {
        let Some(cost) = collapsed_cost(b, split, leaves.as_ref()) else {
            continue;
        };
        if best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
            best = Some((cost, split, leaves));
        }
    }
    // The busiest leaf of the partial SU, for the split built only (the candidates are costed
    // by switch counts alone).
    let built = |split: LeafSplit, mut l: Leaves| -> Result<Topology, SizingError> {
        l.partial_leaf = collapsed_partial_leaf(b, split)?;
        two_tier(at, split, l)
    };
    match best {
        Some((_, split, Some(l))) => built(split, l),
        Some((_, split, None)) => Err(whole(split)),
        None => match first {
            Some(l) => built(fullest, l),
            None => Err(whole(fullest)),
        },
    }
}

/// The busiest leaf of `collapsed_rails`' partial SU with one split ([`partial::packed_rails`]),
/// when whole SUs are built beside it.
fn collapsed_partial_leaf(
    b: &Basics,
    split: LeafSplit,
) -> Result<Option<PartialLeaf>, SizingError> {
    let (d, u) = (split.downlinks, split.uplinks);
    let full_sus = b.nodes.checked_div(d).unwrap_or(0);
    let rem = b.nodes.checked_rem(d).unwrap_or(0);
    if full_sus == 0 || rem == 0 {
        return Ok(None);
    }
    let partial_leaves = ceil_div(mul(rem, b.r, "endpoints")?, d, "leaves")?;
    let first_server = mul(full_sus, d, "servers")?;
    partial::busiest(
        b.nodes,
        partial::packed_rails(first_server, rem, b.r, d, partial_leaves, u)?,
    )
}

/// What `collapsed_rails` with one split costs in switches per plane: its `leaves`, or for a
/// whole-SU split (`None`) the su_clos leaves, joined by the two-tier spine rule. `None` when
/// the leaves do not make a two-tier fabric (more than k; for collapsed leaves, fewer than 2).
fn collapsed_cost(b: &Basics, split: LeafSplit, leaves: Option<&Leaves>) -> Option<SplitCost> {
    let count = match leaves {
        Some(l) if l.count < 2 => return None,
        Some(l) => l.count,
        // su_clos with one leaf (and one spine) is still su_clos.
        None => b.nodes.checked_div(split.downlinks)?.checked_mul(b.r)?,
    };
    if count > b.k {
        return None;
    }
    let u = split.uplinks;
    let spines = two_tier_spines(count, u, b.k)?;
    Some(SplitCost::new(
        count.checked_add(spines)?,
        count.checked_mul(u)?,
        split.downlinks,
    ))
}

/// The leaves of `collapsed_rails` with one split, `None` when the nodes are whole SUs of d.
fn collapsed_leaves(b: &Basics, split: LeafSplit) -> Result<Option<Leaves>, SizingError> {
    let (d, u) = (split.downlinks, split.uplinks);
    let full_sus = b.nodes.checked_div(d).unwrap_or(0);
    let rem = b.nodes.checked_rem(d).unwrap_or(0);
    if rem == 0 {
        return Ok(None);
    }
    // The partial SU's rem·R ports packed rail-major onto ⌈rem·R / d⌉ leaves: a leaf holds
    // whole rails when d ≥ rem; otherwise a rail runs on over as many adjacent leaves as its
    // ports need.
    let partial_ports = mul(rem, b.r, "endpoints")?;
    let partial_leaves = ceil_div(partial_ports, d, "leaves")?;
    let full_leaves = mul(full_sus, b.r, "leaves")?;
    let leaves = add(full_leaves, partial_leaves, "leaves")?;
    // Cages: whole-SU leaves and all but the last partial-SU leaf carry d node links; the last
    // carries what is left of the partial SU's ports.
    let last_down = last_group(partial_ports, partial_leaves, d, "cages")?;
    Ok(Some(Leaves {
        count: leaves,
        cages: cages_of_leaves(b, leaves, d, last_down, u)?,
        su_nodes: d,
        sus: add(full_sus, 1, "scalable units")?,
        // Same-rail traffic stays on one leaf within an SU (d nodes), or within the
        // partial SU when there is no whole one.
        nodes_per_leaf: if full_sus > 0 { d } else { rem },
        // Set for the split built ([`collapsed_partial_leaf`]).
        partial_leaf: None,
    }))
}

/// Cages of `n` ≥ 1 leaves of which all but the last carry `full` node links and the last
/// `last`, each with `uplinks`: ⌈(node links + uplinks) ÷ ports per cage⌉ a leaf.
fn cages_of_leaves(
    b: &Basics,
    n: u64,
    full: u64,
    last: u64,
    uplinks: u64,
) -> Result<u64, SizingError> {
    let cages_of = |down: u64| ceil_div(add(down, uplinks, "cages")?, b.per_cage, "cages");
    add(
        mul(sub(n, 1, "cages")?, cages_of(full)?, "cages")?,
        cages_of(last)?,
        "cages",
    )
}

/// Two switches per plane, NIC ports alternating between them, joined by ⌈ports per switch ÷
/// o⌉ inter-switch links (reported as `leaf_spine` links; tier 1, no spine). Fits when a
/// switch's node ports and ISL ports fit its radix.
fn dual_switch(at: &Attempt<'_>) -> Result<Topology, SizingError> {
    let b = &at.b;
    let o = at.opts.oversubscription;
    if b.r < 2 {
        return Err(
            at.not_fit("one NIC port per server cannot alternate rails over two switches".into())
        );
    }
    // Rail i on switch i mod 2: the first switch takes ⌈R/2⌉ rails of every node (the larger
    // share when R is odd), the second ⌊R/2⌋.
    let per_switch = mul(b.nodes, b.r.div_ceil(2), "ports per switch")?;
    let other = sub(b.endpoints, per_switch, "ports per switch")?;
    let isl = if per_switch > b.k {
        per_switch
    } else {
        bundle(per_switch, o)
    };
    let used = add(per_switch, isl, "ports per switch")?;
    if used > b.k {
        return Err(at.not_fit(Why::DualSwitchPorts {
            per_switch,
            isl,
            k: b.k,
            sku: at.switch.sku.clone(),
            link: b.link,
        }));
    }
    assemble(
        at,
        PerPlane {
            tiers: 1,
            leaves: 2,
            spines: 0,
            leaf_downlinks: per_switch,
            leaf_uplinks: isl,
            realised: per_switch as f64 / isl as f64,
            su_nodes: b.nodes,
            sus: 1,
            // Rail i of every node is on switch i mod 2: same-rail traffic stays on one switch.
            nodes_per_leaf: b.nodes,
            partial_leaf: None,
            leaf_spine: isl,
            // Each inter-switch link takes a port on both switches.
            leaf_ports: add(b.endpoints, mul(2, isl, "ports")?, "ports")?,
            spine_ports: 0,
            // Node and inter-switch links pooled a switch: sizing does not know whether the
            // bundle is copper (then each has cages of its own, and a switch with an odd
            // number of node links takes one more; the BOM buys its module, `bom::shared_cages`)
            // or fibre (one twin module may carry one of each). Counting them apart here, tried
            // on 2026-11-27, overfilled switches it never checked and bought fibre plans
            // modules nobody needs (audit 31).
            leaf_cages: add(
                ceil_div(used, b.per_cage, "cages")?,
                ceil_div(add(other, isl, "cages")?, b.per_cage, "cages")?,
                "cages",
            )?,
            spine_cages: 0,
        },
    )
}

/// A leaf per rack (or more when a rack's ports exceed one leaf's downlinks), each taking whole
/// servers: n = min(⌊d / R⌋, servers per rack) servers per leaf, ⌈servers in the rack / n⌉
/// leaves per rack. Leaves are joined by the two-tier spine rule (at most k leaves per plane).
/// Not applicable without `nodes_per_rack`, when a server's R ports exceed d, or when the
/// whole cluster is one leaf (use `single_switch` / `dual_switch`).
fn tor_copper(at: &Attempt<'_>) -> Result<Topology, SizingError> {
    let (b, opts) = (&at.b, at.opts);
    let Some(per_rack) = opts.nodes_per_rack.filter(|&n| n > 0).map(u64::from) else {
        return Err(at.not_fit(Why::NeedsNodesPerRack));
    };
    let o = opts.oversubscription;
    let split = leaf_split(b.k, o);
    let (d, u) = (split.downlinks, split.uplinks);
    let per_leaf = d.checked_div(b.r).unwrap_or(0).min(per_rack);
    if per_leaf == 0 || u == 0 {
        return Err(at.not_fit(Why::ServerExceedsLeaf { r: b.r, d, o }));
    }
    // A rack leaf never fills up later: its uplinks are sized to the ports its servers use,
    // not to the leaf's full downlink count.
    let down = mul(per_leaf, b.r, "leaf downlinks")?;
    let up = bundle(down, o);
    let split = LeafSplit {
        downlinks: down,
        uplinks: up,
        // This split's own ratio, not the full leaf's.
        exact: (down as f64 - o * up as f64).abs() < 1e-6,
    };
    let u = split.uplinks;
    // Leaves for `servers` servers of one rack, and their downlink ports (whole servers each).
    let rack_leaves = |servers: u64| ceil_div(servers, per_leaf, "leaves");
    let full_racks = b.nodes.checked_div(per_rack).unwrap_or(0);
    let rem = b.nodes.checked_rem(per_rack).unwrap_or(0);
    let leaves = add(
        mul(full_racks, rack_leaves(per_rack)?, "leaves")?,
        rack_leaves(rem)?,
        "leaves",
    )?;
    // Cages: every leaf but the last of each rack carries per_leaf servers.
    let rack_cages = |servers: u64| -> Result<u64, SizingError> {
        if servers == 0 {
            return Ok(0);
        }
        let n = rack_leaves(servers)?;
        let last = last_group(servers, n, per_leaf, "cages")?;
        cages_of_leaves(
            b,
            n,
            mul(per_leaf, b.r, "cages")?,
            mul(last, b.r, "cages")?,
            u,
        )
    };
    let leaf_cages = add(
        mul(full_racks, rack_cages(per_rack)?, "cages")?,
        rack_cages(rem)?,
        "cages",
    )?;
    // Leaves with fewer than `per_leaf` servers beside full ones: the last of a full rack and
    // the last of the partial rack.
    let mut short = Vec::new();
    if b.nodes > per_leaf {
        // (the first rack's short leaf, and the partial rack's, by where they start)
        let partial_rack = mul(full_racks, per_rack, "servers")?;
        for (racks, servers, rack_start) in [
            (full_racks, per_rack, 0),
            (u64::from(rem > 0), rem, partial_rack),
        ] {
            let last = servers.checked_rem(per_leaf).unwrap_or(0);
            if racks > 0 && last > 0 {
                let first = add(rack_start, sub(servers, last, "servers")?, "servers")?;
                short.push(partial::Candidate::whole_rails(first, last, b.r, u)?);
            }
        }
    }
    let partial_leaf = partial::busiest(b.nodes, short)?;
    two_tier(
        at,
        split,
        Leaves {
            count: leaves,
            cages: leaf_cages,
            su_nodes: per_rack,
            sus: add(full_racks, u64::from(rem > 0), "racks")?,
            // Every rail of a server is on its rack's leaf: same-rail traffic between racks
            // crosses the spines.
            nodes_per_leaf: per_leaf,
            partial_leaf,
        },
    )
}

/// The fewest links l with `ports` : l at or below the ratio `o` (⌈ports / o⌉, at least 1);
/// exact in floats for port counts up to a switch's radix.
fn bundle(ports: u64, o: f64) -> u64 {
    ((ports as f64 / o - 1e-9).ceil() as u64).clamp(1, ports.max(1))
}

/// A two-tier design's leaves per plane: how many, their cages (node ports and uplinks), and
/// how they group the nodes.
#[derive(Debug, Clone)]
struct Leaves {
    count: u64,
    cages: u64,
    su_nodes: u64,
    sus: u64,
    nodes_per_leaf: u64,
    /// The busiest leaf of a partial unit beside whole ones ([`partial::busiest`]).
    partial_leaf: Option<PartialLeaf>,
}

/// Leaves joined by the two-tier spine rule: at least two leaves (else one switch does) and at
/// most k per plane (else a third tier is needed).
fn two_tier(at: &Attempt<'_>, split: LeafSplit, l: Leaves) -> Result<Topology, SizingError> {
    let b = &at.b;
    if l.count < 2 {
        return Err(at.not_fit(Why::OneLeaf {
            endpoints: b.endpoints,
            downlinks: split.downlinks,
        }));
    }
    if l.count > b.k {
        return Err(at.not_fit(Why::TwoTierLeaves {
            count: l.count,
            k: b.k,
        }));
    }
    let u = split.uplinks;
    let spines = super::or_overflow(two_tier_spines(l.count, u, b.k), "spines")?;
    let leaf_spine = mul(l.count, u, "leaf-spine links")?;
    let spine_cages = super::cages_even(leaf_spine, spines, 0, b.per_cage)?;
    assemble(
        at,
        PerPlane {
            tiers: 2,
            leaves: l.count,
            spines,
            leaf_downlinks: split.downlinks,
            leaf_uplinks: u,
            realised: split.realised(),
            su_nodes: l.su_nodes,
            sus: l.sus,
            nodes_per_leaf: l.nodes_per_leaf,
            partial_leaf: l.partial_leaf,
            leaf_spine,
            leaf_ports: add(b.endpoints, leaf_spine, "ports")?,
            spine_ports: leaf_spine,
            leaf_cages: l.cages,
            spine_cages,
        },
    )
}

/// What a one- or two-tier design decided, per plane (links and ports count both ends where
/// they use two ports); [`assemble`] totals it over the planes.
struct PerPlane {
    tiers: u8,
    leaves: u64,
    spines: u64,
    leaf_downlinks: u64,
    leaf_uplinks: u64,
    realised: f64,
    su_nodes: u64,
    sus: u64,
    nodes_per_leaf: u64,
    partial_leaf: Option<PartialLeaf>,
    leaf_spine: u64,
    leaf_ports: u64,
    spine_ports: u64,
    leaf_cages: u64,
    spine_cages: u64,
}

/// The topology of a one- or two-tier design: per-plane counts times the planes.
fn assemble(at: &Attempt<'_>, s: PerPlane) -> Result<Topology, SizingError> {
    let (b, switch, opts) = (&at.b, at.switch, at.opts);
    let (two_max, three_max) = ceilings(b, opts.oversubscription)?;
    let total = |v: u64, what: &'static str| mul(v, b.planes, what);
    let node_leaf = total(b.endpoints, "node-leaf links")?;
    let switches = add(s.leaves, s.spines, "switches")?;
    Ok(Topology {
        design: at.design,
        tiers: s.tiers,
        planes: opts.planes,
        switch_sku: switch.sku.clone(),
        spine_sku: None,
        spine_radix: None,
        uplink_speed_gbps: None,
        link_speed_gbps: b.link,
        radix: b.radix,
        leaf_downlinks: to_u32(s.leaf_downlinks, "leaf downlinks")?,
        leaf_uplinks: to_u32(s.leaf_uplinks, "leaf uplinks")?,
        oversubscription_realised: s.realised,
        nodes: to_u32(b.nodes, "nodes")?,
        endpoints_per_plane: b.endpoints,
        scalable_unit_nodes: to_u32(s.su_nodes, "scalable unit")?,
        scalable_units: to_u32(s.sus, "scalable units")?,
        nodes_per_leaf: to_u32(s.nodes_per_leaf, "nodes per leaf")?,
        partial_leaf: s.partial_leaf,
        leaf_switches: total(s.leaves, "leaves")?,
        spine_switches: total(s.spines, "spines")?,
        core_switches: 0,
        links: Links {
            node_leaf,
            leaf_spine: total(s.leaf_spine, "leaf-spine links")?,
            spine_core: 0,
        },
        ports: PortUsage {
            nic_ports: node_leaf,
            leaf_ports_used: total(s.leaf_ports, "ports")?,
            spine_ports_used: total(s.spine_ports, "ports")?,
            core_ports_used: 0,
            switch_ports_total: total(mul(switches, b.k, "ports")?, "ports")?,
            switch_cages_used: total(add(s.leaf_cages, s.spine_cages, "cages")?, "cages")?,
            switch_cages_total: total(mul(switches, b.cages_per_switch, "cages")?, "cages")?,
            leaf_cages_used: total(s.leaf_cages, "cages")?,
            spine_cages_used: total(s.spine_cages, "cages")?,
            core_cages_used: 0,
        },
        two_tier_max_endpoints_per_plane: two_max,
        three_tier_max_endpoints_per_plane: three_max,
    })
}
