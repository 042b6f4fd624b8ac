//! A leaf–spine Clos of two switch models (docs/sizing.md "A spine of another model"): leaves
//! of one model, spines of another, in two tiers. The leaves' uplinks are either a split of
//! their own ports at the link speed (as `su_clos` splits them), or a group of faster ports
//! beside them (the Arista 7280CR3-32D4's 4 × 400G beside 32 × 100G), which the spines take
//! at that speed. Buyers' "typical 4-leaf, 2-spine RoCEv2 fabric for 32 GPU servers" is one:
//! 32 × 100G to the hosts and 4 × 400G up on each leaf, two spines of 64 × 400G.
//!
//! Rules, in the order applied:
//! 1. Leaf downlinks d and uplinks u. Faster uplinks: u = the group's ports, and d = the most
//!    node ports the asked ratio allows, min(k, ⌊o · u · s_up / s_link⌋) (16 at 1:1 on that
//!    leaf, all 32 at 2:1). Otherwise the fullest split of k at the asked ratio, as `su_clos`.
//!    The realised ratio is in bandwidth: d · s_link / (u · s_up).
//! 2. Scalable units and leaves as `su_clos` (rail-optimized: d nodes an SU, R leaves).
//! 3. Two tiers: every spine reaches every leaf, so at most k_spine leaves (k_spine: the
//!    spine's ports at the uplink speed); past that the cluster does not fit, with the ceiling
//!    k_spine · d.
//! 4. Spines: the smallest S dividing u with S ≥ ⌈L · u / k_spine⌉ (each leaf has u / S links
//!    to every spine) and S ≥ 2 when u ≥ 2: one spine's failure then leaves every leaf
//!    connected, as in the published design (two spines where one 64-port spine would take
//!    the 16 uplinks).

use super::oversubscription::smallest_divisor_at_least;
use super::{
    Basics, ClusterSpec, Design, LeafSplit, Links, PortUsage, SizingError, SwitchSpec, Topology,
    TopologyOptions, add, basics, cages_even, ceil_div, last_group, mul, scalable_units,
    su_leaf_cages, su_partial_leaf, to_u32, usable_split,
};

/// A leaf's ports of a second, faster speed, used as its uplinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UplinkGroup {
    pub ports: u32,
    pub speed_gbps: u32,
}

/// The leaf's uplinks: its split at the link speed, or its group of faster ports.
struct Uplinks {
    split: LeafSplit,
    /// Speed of one uplink, Gb/s.
    speed: u32,
    /// Whether they are a group of their own (a cage each), not ports of the leaf's radix.
    own_ports: bool,
}

/// Sizes the two-tier Clos of `leaf` leaves (with `group` as their uplinks, if given) under
/// `spine` spines.
pub fn leaf_spine_of_two_models(
    cluster: &ClusterSpec,
    leaf: &SwitchSpec,
    group: Option<UplinkGroup>,
    spine: &SwitchSpec,
    opts: &TopologyOptions,
    design: Design,
) -> Result<Topology, SizingError> {
    let b = basics(cluster, leaf, opts)?;
    let o = opts.oversubscription;
    let up = uplinks(&b, group, o)?;
    let (d, u) = (up.split.downlinks, up.split.uplinks);
    // The spine's ports at the uplink speed (its breakout, as a leaf's).
    let spine_b = basics(
        &ClusterSpec {
            nic_speed_gbps: up.speed,
            ..cluster.clone()
        },
        spine,
        &TopologyOptions {
            planes: 1,
            ..opts.clone()
        },
    )?;
    let k_spine = spine_b.k;

    let su = scalable_units(cluster, opts, &b, d)?;
    let leaves = su.leaves;
    let two_max = mul(k_spine, d, "two-tier ceiling")?;
    if leaves > k_spine {
        let formula = format!(
            "k_spine*d with k_spine = {k_spine} ports of {}G on {} and d = {d} leaf downlinks on {}",
            up.speed, spine.sku, leaf.sku
        );
        return Err(if b.endpoints > two_max {
            SizingError::ExceedsTierCeiling {
                max_tiers: 2,
                endpoints_per_plane: b.endpoints,
                ceiling_endpoints_per_plane: two_max,
                formula,
            }
        } else {
            SizingError::LeavesExceedTierLimit {
                max_tiers: 2,
                leaves_per_plane: leaves,
                max_leaves_per_plane: k_spine,
                scalable_units: su.sus,
                scalable_unit_nodes: su.su_nodes,
                formula,
            }
        });
    }
    let leaf_spine = mul(leaves, u, "leaf-spine links")?;
    let at_least = ceil_div(leaf_spine, k_spine, "spines")?.max(u.min(2));
    let spines = match smallest_divisor_at_least(u, at_least) {
        Some(s) => s,
        None => at_least,
    };

    let planes = b.planes;
    let total = |v: u64, what: &'static str| mul(v, planes, what);
    let node_leaf = mul(b.endpoints, planes, "node-leaf links")?;
    let last_su_nodes = last_group(b.nodes, su.sus, su.su_nodes, "cages")?;
    // A group's uplinks have a cage each; a split's share the leaf's cages with its node links.
    let leaf_cages = if up.own_ports {
        add(
            su_leaf_cages(&su, last_su_nodes, 0, b.per_cage)?,
            leaf_spine,
            "cages",
        )?
    } else {
        su_leaf_cages(&su, last_su_nodes, u, b.per_cage)?
    };
    let spine_cages = cages_even(leaf_spine, spines, 0, spine_b.per_cage)?;
    let group_ports = if up.own_ports { u } else { 0 };
    let leaf_ports = add(b.k, group_ports, "ports")?;
    let ports_total = add(
        mul(leaves, leaf_ports, "ports")?,
        mul(spines, k_spine, "ports")?,
        "ports",
    )?;
    let cages_total = add(
        mul(
            leaves,
            add(b.cages_per_switch, group_ports, "cages")?,
            "cages",
        )?,
        mul(spines, spine_b.cages_per_switch, "cages")?,
        "cages",
    )?;
    let realised = (d as f64 * f64::from(b.link)) / (u as f64 * f64::from(up.speed)).max(1.0);
    Ok(Topology {
        design,
        tiers: 2,
        planes: opts.planes,
        switch_sku: leaf.sku.clone(),
        spine_sku: Some(spine.sku.clone()),
        spine_radix: Some(spine_b.radix),
        uplink_speed_gbps: (up.speed != b.link).then_some(up.speed),
        link_speed_gbps: b.link,
        radix: b.radix,
        leaf_downlinks: to_u32(d, "leaf downlinks")?,
        leaf_uplinks: to_u32(u, "leaf uplinks")?,
        oversubscription_realised: realised,
        nodes: to_u32(b.nodes, "nodes")?,
        endpoints_per_plane: b.endpoints,
        scalable_unit_nodes: to_u32(su.su_nodes, "scalable unit")?,
        scalable_units: to_u32(su.sus, "scalable units")?,
        nodes_per_leaf: to_u32(su.su_nodes, "nodes per leaf")?,
        partial_leaf: su_partial_leaf(b.nodes, &su, last_su_nodes, u)?,
        leaf_switches: total(leaves, "leaves")?,
        spine_switches: total(spines, "spines")?,
        core_switches: 0,
        links: Links {
            node_leaf,
            leaf_spine: total(leaf_spine, "leaf-spine links")?,
            spine_core: 0,
        },
        ports: PortUsage {
            nic_ports: node_leaf,
            leaf_ports_used: total(add(b.endpoints, leaf_spine, "ports")?, "ports")?,
            spine_ports_used: total(leaf_spine, "ports")?,
            core_ports_used: 0,
            switch_ports_total: total(ports_total, "ports")?,
            switch_cages_used: total(add(leaf_cages, spine_cages, "cages")?, "cages")?,
            switch_cages_total: total(cages_total, "cages")?,
            leaf_cages_used: total(leaf_cages, "cages")?,
            spine_cages_used: total(spine_cages, "cages")?,
            core_cages_used: 0,
        },
        two_tier_max_endpoints_per_plane: two_max,
        three_tier_max_endpoints_per_plane: two_max,
    })
}

/// Line cards `switches` chassis need for `links` spread evenly over them (the first
/// `links mod switches` take one more), `per_card` links a card: the cards of each chassis
/// rounded up on its own.
pub fn line_cards(links: u64, switches: u64, per_card: u64) -> Result<u64, SizingError> {
    cages_even(links, switches, 0, per_card)
}

/// Rule 1: the leaf's uplinks and the node ports the asked ratio `o` leaves beside them.
fn uplinks(b: &Basics, group: Option<UplinkGroup>, o: f64) -> Result<Uplinks, SizingError> {
    let Some(g) = group.filter(|g| g.speed_gbps > b.link) else {
        return Ok(Uplinks {
            split: usable_split(b.k, o)?,
            speed: b.link,
            own_ports: false,
        });
    };
    let u = u64::from(g.ports);
    // Node ports whose bandwidth is at most o × the uplinks' (a small tolerance so that an
    // exact ratio given in decimal is not lost to rounding).
    let allowed = o * (u as f64) * f64::from(g.speed_gbps) / f64::from(b.link.max(1));
    let d = b.k.min((allowed + 1e-9).floor().max(0.0) as u64);
    if d == 0 || u == 0 {
        return Err(SizingError::LeafSplit {
            radix: b.k,
            leaf_downlinks: d,
            oversubscription: o,
        });
    }
    Ok(Uplinks {
        split: LeafSplit {
            downlinks: d,
            uplinks: u,
            exact: true,
        },
        speed: g.speed_gbps,
        own_ports: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn switch(sku: &str, ports: u32, speed: u32, links: &[u32]) -> SwitchSpec {
        SwitchSpec {
            sku: sku.into(),
            ports,
            port_speed_gbps: speed,
            link_speeds_gbps: links.to_vec(),
            ports_per_cage: 1,
        }
    }

    fn servers(nodes: u32, o: f64) -> (ClusterSpec, TopologyOptions) {
        (
            ClusterSpec {
                gpus: nodes * 8,
                gpus_per_node: 8,
                nics_per_node: 4,
                nic_speed_gbps: 100,
            },
            TopologyOptions {
                planes: 1,
                oversubscription: o,
                rail_optimized: true,
                max_tiers: 3,
                nodes_per_rack: None,
            },
        )
    }

    const GROUP: UplinkGroup = UplinkGroup {
        ports: 4,
        speed_gbps: 400,
    };

    /// 32 × 100G leaves with 4 × 400G up under 64 × 400G spines: the ratio asked sets the node
    /// ports beside the uplinks, and the ceiling is the spine's ports × d.
    #[test]
    fn faster_uplinks_set_the_node_ports_and_the_spines_set_the_ceiling() {
        let leaf = switch("leaf", 32, 100, &[100]);
        let spine = switch("spine", 64, 400, &[400, 100]);
        let (c, o) = servers(32, 2.0);
        let t =
            leaf_spine_of_two_models(&c, &leaf, Some(GROUP), &spine, &o, Design::SuClos).unwrap();
        assert_eq!((t.leaf_downlinks, t.leaf_uplinks), (32, 4));
        assert_eq!((t.leaf_switches, t.spine_switches), (4, 2));
        assert_eq!(t.oversubscription_realised, 2.0);
        assert_eq!(t.uplink_speed_gbps, Some(400));
        assert_eq!(t.two_tier_max_endpoints_per_plane, 64 * 32);
        // One cage a node link and a cage an uplink on the leaves; one an uplink on the spines.
        assert_eq!(t.ports.leaf_cages_used, 128 + 16);
        assert_eq!(t.ports.spine_cages_used, 16);

        // Non-blocking, a leaf takes the 16 servers' ports its 1,600G of uplinks carry.
        let (c, o) = servers(32, 1.0);
        let t =
            leaf_spine_of_two_models(&c, &leaf, Some(GROUP), &spine, &o, Design::SuClos).unwrap();
        assert_eq!((t.leaf_downlinks, t.leaf_switches), (16, 8));
        assert_eq!(t.oversubscription_realised, 1.0);

        // 2,048 node ports fill the 64 spine ports' leaves; one server more does not fit.
        let (c, o) = servers(512, 2.0);
        let t =
            leaf_spine_of_two_models(&c, &leaf, Some(GROUP), &spine, &o, Design::SuClos).unwrap();
        assert_eq!((t.leaf_switches, t.spine_switches), (64, 4));
        let (c, o) = servers(513, 2.0);
        let e = leaf_spine_of_two_models(&c, &leaf, Some(GROUP), &spine, &o, Design::SuClos)
            .unwrap_err();
        assert!(matches!(e, SizingError::ExceedsTierCeiling { .. }), "{e:?}");
    }

    /// One spine's 64 ports could take 4 leaves' 16 uplinks; two are built so that no one
    /// switch cuts a leaf off. A leaf with one uplink has one spine.
    #[test]
    fn two_spines_at_least_when_a_leaf_has_two_uplinks() {
        let leaf = switch("leaf", 32, 100, &[100]);
        let spine = switch("spine", 64, 400, &[400]);
        let (c, o) = servers(8, 2.0);
        let t =
            leaf_spine_of_two_models(&c, &leaf, Some(GROUP), &spine, &o, Design::SuClos).unwrap();
        assert_eq!(t.spine_switches, 2);
        let one = UplinkGroup {
            ports: 1,
            speed_gbps: 400,
        };
        let (c, o) = servers(8, 8.0);
        let t = leaf_spine_of_two_models(&c, &leaf, Some(one), &spine, &o, Design::SuClos).unwrap();
        assert_eq!((t.leaf_uplinks, t.spine_switches), (1, 1));
    }

    /// Without faster ports the leaves split their own at the link speed, as `su_clos` does,
    /// and a larger spine holds more leaves in two tiers than the leaf's own model.
    #[test]
    fn a_larger_spine_keeps_two_tiers_where_the_leaf_model_needs_three() {
        let leaf = switch("leaf", 64, 800, &[800, 400]);
        let big = switch("big", 288, 400, &[400]);
        let c = ClusterSpec {
            gpus: 16_384,
            gpus_per_node: 8,
            nics_per_node: 8,
            nic_speed_gbps: 400,
        };
        let o = TopologyOptions {
            planes: 1,
            oversubscription: 1.0,
            rail_optimized: true,
            max_tiers: 3,
            nodes_per_rack: None,
        };
        let same = super::super::size(&c, &leaf, &o).unwrap();
        assert_eq!(same.tiers, 3);
        let t = leaf_spine_of_two_models(&c, &leaf, None, &big, &o, Design::SuClos).unwrap();
        assert_eq!((t.tiers, t.leaf_downlinks, t.leaf_uplinks), (2, 64, 64));
        assert_eq!(t.leaf_switches, same.leaf_switches);
        // 256 leaves × 64 uplinks over 288-port spines: ⌈16,384 / 288⌉ = 57, the next
        // divisor of 64 is 64.
        assert_eq!(t.spine_switches, 64);
        assert_eq!(t.uplink_speed_gbps, None);
        assert_eq!(t.spine_radix, Some(288));
    }
}
