//! What a sized fabric's chosen design says about its parts: modules that do not fill or
//! overfill a switch cage, NIC links whose two ends cannot link, an oversubscription that
//! cannot be realised exactly, placeholder prices and power figures.

use super::parts::Parts;
use crate::fabric::Fabric;
use crate::plan::{bom, inputs};
use crate::sizing::Topology;
use crate::words::push_unique;

/// A fabric's chosen design with the parts and cabling it is built of (the catalog is the
/// cabling context's).
#[derive(Clone, Copy)]
pub(super) struct Chosen<'a> {
    pub fabric: Fabric,
    pub parts: &'a Parts<'a>,
    pub ctx: &'a bom::BomContext<'a>,
    pub topology: &'a Topology,
}

/// A switch cage takes one module carrying all its links: a module that serves fewer (a
/// twin-port 2 x 400G in a 1.6T cage run as 4 x 400G) is counted per link end, two in one
/// cage; one that carries more (a 4-link module named for a 2-link cage) serves only the
/// cage's links, one a cage; either way the plan says so.
pub(super) fn cage_fit(chosen: &Chosen<'_>, warnings: &mut Vec<String>) {
    let Chosen {
        fabric,
        parts,
        ctx,
        topology,
    } = *chosen;
    let catalog = ctx.catalog;
    let switch = parts.switch;
    let per_cage = bom::links_per_cage(switch, topology);
    let links = [
        topology.links.node_leaf,
        topology.links.leaf_spine,
        topology.links.spine_core,
    ];
    let misfit = |fewer: bool| -> Vec<String> {
        bom::TIERS
            .iter()
            .zip(ctx.cabling)
            .zip(links)
            .filter(|(_, l)| *l > 0)
            // Uplinks of their own ports (a cage each) are checked by `uplink_cage_fit`.
            .filter(|((tier, _), _)| {
                !(**tier == "leaf_spine" && topology.uplink_speed_gbps.is_some())
            })
            .filter_map(|((tier, cab), _)| {
                let m = catalog.transceiver(cab.switch_module.as_deref()?)?;
                let links = u64::from(m.links_per_module);
                (if fewer {
                    links < per_cage
                } else {
                    links > per_cage
                })
                .then(|| format!("{tier} ({}, {links} link(s))", m.part.sku))
            })
            .collect()
    };
    let (short, long) = (misfit(true), misfit(false));
    let cage = format!(
        "{}: every {} cage carries {per_cage} links at {} Gb/s",
        fabric.as_str(),
        switch.part.sku,
        topology.link_speed_gbps
    );
    for (named, says) in [
        (
            short,
            "fewer; counted per link end, more than one module per cage — get a module that fills the cage from the switch vendor or name one in topology.cabling",
        ),
        (
            long,
            "more; counted one per cage in use, the other links unused — check that it fits the cage",
        ),
    ] {
        if !named.is_empty() {
            let (noun, verb) = if named.len() > 1 {
                ("modules", "carry")
            } else {
                ("module", "carries")
            };
            push_unique(
                warnings,
                format!(
                    "{cage} and the switch-side {noun} named for {} {verb} {says}",
                    named.join(", ")
                ),
            );
        }
    }
}

/// The leaves' faster uplink ports take a module of their cage's form factor: the BOM finds
/// one that does the tier module's job, or keeps the tier's and the plan says it does not fit.
pub(super) fn uplink_cage_fit(chosen: &Chosen<'_>, warnings: &mut Vec<String>) {
    let Chosen {
        fabric,
        parts,
        ctx,
        topology,
    } = *chosen;
    let (Some(group), Some(speed)) = (&parts.switch.uplink_ports, topology.uplink_speed_gbps)
    else {
        return;
    };
    let Some(tier_module) = ctx.cabling[1]
        .switch_module
        .as_deref()
        .and_then(|sku| ctx.catalog.transceiver(sku))
    else {
        return;
    };
    let m = bom::uplink_cage_module(ctx, topology, tier_module);
    if !m.form_factor.eq_ignore_ascii_case(&group.cage) || m.links_per_module != 1 {
        push_unique(
            warnings,
            format!(
                "{}: the {} uplinks of {} have {} cages; no catalog module of that form factor carries one {speed} Gb/s link like {} — the leaf_spine modules are priced as {} but do not fit; name one in topology.cabling.leaf_spine",
                fabric.as_str(),
                group.ports,
                parts.switch.part.sku,
                group.cage,
                tier_module.part.sku,
                m.part.sku
            ),
        );
    }
}

/// A spine of another model whose cages no catalog module of the leaf–spine tier's job fits.
pub(super) fn spine_cage_fit(chosen: &Chosen<'_>, warnings: &mut Vec<String>) {
    if let Some((cage, module)) = bom::spine_end_unfit(chosen.topology, chosen.ctx) {
        push_unique(
            warnings,
            format!(
                "{}: the spines ({}) have {cage} cages and no catalog module of that form factor does the job of {module} — the spine ends are priced as {module}; name one in topology.cabling.leaf_spine",
                chosen.fabric.as_str(),
                chosen.ctx.spine.part.sku,
            ),
        );
    }
}

/// The NIC end of the node links: a module whose lane rate differs from the switch end's (the
/// two cannot link: priced as given and said to be unbuildable as such), or none in the
/// catalog that carries the NIC's links in its cage.
pub(super) fn nic_module_fit(chosen: &Chosen<'_>, warnings: &mut Vec<String>) {
    let Chosen {
        fabric,
        parts,
        ctx,
        topology,
    } = *chosen;
    let catalog = ctx.catalog;
    let nic = parts.nic;
    let Some(m) = ctx.cabling[0]
        .nic_module
        .as_deref()
        .and_then(|sku| catalog.transceiver(sku))
    else {
        return;
    };
    let side = bom::nic_side_module(catalog, nic, m, topology.planes);
    if let Some(sw) = ctx.cabling[0]
        .switch_module
        .as_deref()
        .and_then(|sku| catalog.transceiver(sku))
        && let (Some(nic_lane), Some(sw_lane)) = (side.module.lane_gbps, sw.lane_gbps)
        && nic_lane != sw_lane
        && topology.links.node_leaf > 0
    {
        push_unique(
            warnings,
            format!(
                "{}: the NIC-side {} signals on {nic_lane}G lanes and the switch-side {} on {sw_lane}G lanes; optics cannot change lane rate, so these two ends do not link ({}) — the node–leaf cabling is priced as the profile names it but must be replaced",
                fabric.as_str(),
                side.module.part.sku,
                sw.part.sku,
                if nic.speed_gbps <= 200 && nic_lane == 50 {
                    "HDR hosts on an NDR switch need the vendor's splitter AOC, or HDR switches"
                } else {
                    "both ends need modules of one lane rate; set topology.cabling.node_leaf, or change the plane split"
                },
            ),
        );
    }
    if !side.fits {
        push_unique(
            warnings,
            format!(
                "{}: no module in the catalog carries {} link(s) of {} Gb/s in one {} cage of {}; counted {} {} per NIC as the profile names it — check the NIC's port split",
                fabric.as_str(),
                topology.planes.div_ceil(nic.ports.max(1)),
                topology.link_speed_gbps,
                nic.cage.as_deref().unwrap_or(&m.form_factor),
                nic.part.sku,
                side.per_nic,
                m.part.sku,
            ),
        );
    }
}

/// The leaves' ratio when the one asked cannot be realised exactly on their ports.
pub(super) fn inexact_ratio(
    r: &inputs::Resolved,
    fabric: Fabric,
    topology: &Topology,
    warnings: &mut Vec<String>,
) {
    if topology.leaf_uplinks > 0
        && (topology.oversubscription_realised - r.oversubscription).abs() > 1e-9
    {
        push_unique(
            warnings,
            format!(
                "{}: oversubscription {}:1 cannot be realised exactly on {}-port leaves; using the nearest ratio below, {}:{} = {:.3}:1",
                fabric.as_str(),
                r.oversubscription,
                topology.radix,
                topology.leaf_downlinks,
                topology.leaf_uplinks,
                topology.oversubscription_realised
            ),
        );
    }
}

/// The BOM's placeholder prices (unless the request overrides them) and power figures.
pub(super) fn placeholders(
    r: &inputs::Resolved,
    fabric: Fabric,
    items: &[bom::BomItem],
    warnings: &mut Vec<String>,
) {
    for it in items {
        if it.notes.placeholder_price && !r.adjustments.overrides.contains_key(it.line.sku.as_str())
        {
            push_unique(
                warnings,
                format!(
                    "{}: the catalog price of {} is a placeholder (grade P) — get a quote or set prices.overrides",
                    fabric.as_str(),
                    it.line.sku
                ),
            );
        }
        if it.notes.placeholder_power {
            push_unique(
                warnings,
                format!(
                    "{}: the power figure of {} is a placeholder (not published)",
                    fabric.as_str(),
                    it.line.sku
                ),
            );
        }
    }
}
