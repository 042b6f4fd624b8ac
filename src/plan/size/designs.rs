//! Every design sized for a fabric's parts and priced at capex, and the choice among them:
//! the cheapest that meets the request, else why none does and what would help.

use rust_decimal::Decimal;

use super::parts::Parts;
use super::{Sizing, infeasible, switch_spec};
use crate::catalog::TierCabling;
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
use crate::plan::error::{PlanError, sizing_error};
use crate::plan::options::Detail;
use crate::plan::output::DesignAlternative;
use crate::plan::{bom, inputs};
use crate::sizing::{self, Design, Topology};
use crate::words::push_unique;

/// The BOM context each design is cabled with.
pub(super) struct Cabled<'a> {
    /// Every design but the two below.
    pub ctx: bom::BomContext<'a>,
    /// `dual_switch`'s two switches joined by the profile's inter-switch cabling (in-rack
    /// copper) unless the request sets `topology.cabling.leaf_spine`.
    isl: Option<bom::BomContext<'a>>,
    /// `tor_copper`: servers cabled to their rack's leaf with the profile's in-rack copper, or
    /// with the request's `topology.cabling.node_leaf`; without either it cannot be cabled.
    tor: Option<bom::BomContext<'a>>,
    /// `chassis_spine`: the spines are the catalog's chassis.
    chassis: Option<bom::BomContext<'a>>,
}

impl<'a> Cabled<'a> {
    pub(super) fn new(
        r: &'a inputs::Resolved,
        parts: &Parts<'a>,
        cabling: [&'a TierCabling; 3],
    ) -> Cabled<'a> {
        let ctx = bom::BomContext {
            catalog: &r.catalog,
            switch: parts.switch,
            spine: parts.spine.unwrap_or(parts.switch),
            nic: parts.nic,
            cabling,
            nics_per_node: r.nics_per_node,
            pointer_for_cabling: "/topology/cabling",
        };
        let isl = match (&r.cabling.leaf_spine, parts.profile_cabling) {
            (None, Some(c)) => c.inter_switch.as_ref(),
            _ => None,
        }
        .map(|isl| bom::BomContext {
            cabling: [cabling[0], isl, cabling[2]],
            ..ctx
        });
        let tor = match (&r.cabling.node_leaf, parts.profile_cabling) {
            (Some(_), _) => Some(ctx),
            (None, Some(c)) => c.node_leaf_in_rack.as_ref().map(|copper| bom::BomContext {
                cabling: [copper, cabling[1], cabling[2]],
                ..ctx
            }),
            (None, None) => None,
        };
        let chassis = parts.chassis.map(|c| bom::BomContext { spine: c, ..ctx });
        Cabled {
            ctx,
            isl,
            tor,
            chassis,
        }
    }

    /// The context `d` is cabled with; `None`: it cannot be cabled.
    pub(super) fn for_design(&self, d: Design) -> Option<&bom::BomContext<'a>> {
        match d {
            Design::DualSwitch => Some(self.isl.as_ref().unwrap_or(&self.ctx)),
            Design::TorCopper => self.tor.as_ref(),
            // The catalog's chassis, or the one the request names as its spine (`ctx`'s).
            Design::ChassisSpine => Some(self.chassis.as_ref().unwrap_or(&self.ctx)),
            _ => Some(&self.ctx),
        }
    }
}

/// A design sized for a fabric's parts, with what its BOM costs and draws.
pub(super) struct SizedDesign {
    pub design: Design,
    pub topology: Topology,
    pub capex_usd: Decimal,
    /// Σ(quantity × power_w) over its BOM, watts.
    pub it_power_w: Decimal,
}

/// Every design of a fabric: those sized with their capex, and those that do not fit with why.
pub(super) struct Designs {
    pub sized: Vec<SizedDesign>,
    pub not_fitting: Vec<(Design, sizing::SizingError)>,
}

/// The request's cluster and topology options as sizing takes them.
pub(super) fn cluster_and_options(
    r: &inputs::Resolved,
    parts: &Parts<'_>,
) -> (sizing::ClusterSpec, sizing::TopologyOptions) {
    let cluster = sizing::ClusterSpec {
        gpus: r.gpus,
        gpus_per_node: r.gpus_per_node,
        nics_per_node: r.nics_per_node,
        nic_speed_gbps: r.nic_speed_gbps,
    };
    let opts = sizing::TopologyOptions {
        planes: parts.planes,
        oversubscription: r.oversubscription,
        rail_optimized: r.rail_optimized,
        max_tiers: r.max_tiers,
        nodes_per_rack: r.nodes_per_rack,
    };
    (cluster, opts)
}

/// Sizes every design and prices each at capex (no BOM text, no copies). A design with
/// cabling of its own (the inter-switch bundle, in-rack copper) that cannot be cabled or
/// priced does not fit; it must not fail the other designs.
pub(super) fn size_each(
    r: &inputs::Resolved,
    fabric: Fabric,
    parts: &Parts<'_>,
    cabled: &Cabled<'_>,
) -> Result<Designs, PlanError> {
    let (cluster, opts) = cluster_and_options(r, parts);
    let mut out = Designs {
        sized: Vec::with_capacity(Design::ALL.len()),
        not_fitting: Vec::with_capacity(Design::ALL.len()),
    };
    let no_copper = || sizing::SizingError::DesignDoesNotFit {
        design: Design::TorCopper,
        why: sizing::Why::Text(format!(
            "the {} profile has no in-rack copper for {} Gb/s links; set topology.cabling.node_leaf",
            fabric.as_str(),
            parts.link_speed
        )),
    };
    for (design, res) in sized_designs(parts, &cluster, &opts, r.design.named()) {
        let own_cabling = matches!(design, Design::DualSwitch | Design::TorCopper);
        let t = match res {
            Ok(t) => t,
            Err(e) if sizing::feasibility::is_infeasibility(&e) => {
                out.not_fitting.push((design, e));
                continue;
            }
            Err(e) => return Err(sizing_error(&e, fabric)),
        };
        let Some(ctx) = cabled.for_design(design) else {
            out.not_fitting.push((design, no_copper()));
            continue;
        };
        match bom::capex_and_power_of(&t, ctx, &r.adjustments) {
            Ok((capex_usd, it_power_w)) => out.sized.push(SizedDesign {
                design,
                topology: t,
                capex_usd,
                it_power_w,
            }),
            Err(e) if own_cabling => out.not_fitting.push((
                design,
                sizing::SizingError::DesignDoesNotFit {
                    design,
                    why: sizing::Why::Text(format!("its cabling cannot be priced: {}", e.detail)),
                },
            )),
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// Every design sized for the parts: all of them, or under a spine of another model
/// (`topology.spine_sku`) the leaf–spine Clos of the two models alone — `chassis_spine` when the
/// spine named is a modular chassis, else `su_clos` — and a named design that is not it, said
/// not to fit.
fn sized_designs(
    parts: &Parts<'_>,
    cluster: &sizing::ClusterSpec,
    opts: &sizing::TopologyOptions,
    named: Option<Design>,
) -> Vec<(Design, Result<Topology, sizing::SizingError>)> {
    let leaf = switch_spec(parts.switch);
    let Some(spine) = parts.spine else {
        let mut out = sizing::alternatives(cluster, &leaf, opts);
        out.extend(chassis_spine(parts, cluster, opts, named, &out));
        return out;
    };
    let built = if spine.chassis.is_some() {
        Design::ChassisSpine
    } else {
        Design::SuClos
    };
    let two = sizing::leaf_spine_of_two_models(
        cluster,
        &leaf,
        parts.uplink_group(),
        &switch_spec(spine),
        opts,
        built,
    );
    let mut out = vec![(built, two)];
    if let Some(d) = named.filter(|&d| d != built) {
        out.push((
            d,
            Err(sizing::SizingError::DesignDoesNotFit {
                design: d,
                why: sizing::Why::Text(format!(
                    "a spine of another model (topology.spine_sku) is built as {}, a two-tier leaf-spine",
                    built.as_str()
                )),
            }),
        ));
    }
    out
}

/// The chassis spine, sized where it could remove a tier (`su_clos` needs three, or does not
/// fit the tiers allowed) or when named; named without a chassis in the catalog for the
/// fabric and link speed, it does not fit.
fn chassis_spine(
    parts: &Parts<'_>,
    cluster: &sizing::ClusterSpec,
    opts: &sizing::TopologyOptions,
    named: Option<Design>,
    sized: &[(Design, Result<Topology, sizing::SizingError>)],
) -> Option<(Design, Result<Topology, sizing::SizingError>)> {
    let asked = named == Some(Design::ChassisSpine);
    let su_needs_a_third = sized
        .iter()
        .any(|(d, res)| *d == Design::SuClos && res.as_ref().map_or(true, |t| t.tiers > 2));
    if !asked && !su_needs_a_third {
        return None;
    }
    let Some(chassis) = parts.chassis else {
        return asked.then(|| {
            (
                Design::ChassisSpine,
                Err(sizing::SizingError::DesignDoesNotFit {
                    design: Design::ChassisSpine,
                    why: sizing::Why::Text(format!(
                        "the catalog has no modular chassis for this fabric at {} Gb/s links",
                        parts.link_speed
                    )),
                }),
            )
        });
    };
    Some((
        Design::ChassisSpine,
        sizing::leaf_spine_of_two_models(
            cluster,
            &switch_spec(parts.switch),
            None,
            &switch_spec(chassis),
            opts,
            Design::ChassisSpine,
        ),
    ))
}

/// Racks given but no top-of-rack design built: says why, unless one or two switches are
/// sized, where a leaf in each rack is beside the point whatever kept it out.
pub(super) fn tor_copper_note(
    r: &inputs::Resolved,
    fabric: Fabric,
    designs: &Designs,
    warnings: &mut Vec<String>,
) {
    let one_or_two = designs
        .sized
        .iter()
        .any(|d| matches!(d.design, Design::SingleSwitch | Design::DualSwitch));
    if r.nodes_per_rack.is_some()
        && !one_or_two
        && let Some((_, e)) = designs
            .not_fitting
            .iter()
            .find(|(d, _)| *d == Design::TorCopper)
    {
        push_unique(
            warnings,
            format!(
                "{}: tor_copper (copper to the servers in each rack) was not sized: {e}",
                fabric.as_str(),
            ),
        );
    }
}

/// Whether a sized design meets the request: within its tiers and oversubscription, and
/// accepted by its design choice.
pub(super) fn meets(r: &inputs::Resolved, t: &Topology) -> bool {
    let within = t.tiers <= r.max_tiers && t.oversubscription_realised <= r.oversubscription + 1e-9;
    within && r.design.accepts(t, r.rail_optimized)
}

impl Designs {
    /// The index of the cheapest design that meets the request; ties go to the earlier design
    /// (fewer tiers).
    pub(super) fn chosen(&self, r: &inputs::Resolved) -> Option<usize> {
        self.sized
            .iter()
            .enumerate()
            .filter(|(_, d)| meets(r, &d.topology))
            .min_by(|(i, a), (j, b)| a.capex_usd.cmp(&b.capex_usd).then(i.cmp(j)))
            .map(|(i, _)| i)
    }

    /// Every sized design with its capex, the chosen one marked.
    pub(super) fn alternatives(
        &self,
        r: &inputs::Resolved,
        chosen: usize,
    ) -> Vec<DesignAlternative> {
        self.sized
            .iter()
            .enumerate()
            .map(|(i, d)| DesignAlternative {
                design: d.design,
                tiers: d.topology.tiers,
                leaf_switches: d.topology.leaf_switches,
                spine_switches: d.topology.spine_switches,
                core_switches: d.topology.core_switches,
                capex_usd: d.capex_usd,
                it_power_w: d.it_power_w,
                meets_request: meets(r, &d.topology),
                chosen: i == chosen,
            })
            .collect()
    }
}

/// No design meets the request: the named design's error, else the SU design's (the one with
/// ceilings), and in a full plan what would make it buildable.
pub(super) fn none_meets(
    r: &inputs::Resolved,
    fabric: Fabric,
    parts: &Parts<'_>,
    designs: &Designs,
    detail: Detail,
) -> Sizing {
    let want = r.design.named().unwrap_or(Design::SuClos);
    let e = designs
        .not_fitting
        .iter()
        .find(|(d, _)| *d == want)
        .or_else(|| designs.not_fitting.first())
        .map(|(_, e)| {
            let e = sizing_error(e, fabric);
            // The two-model Clos has two tiers whatever `max_tiers` says: a larger spine helps.
            match (parts.spine, &e.code) {
                (Some(_), ErrorCode::ExceedsTierCeiling | ErrorCode::ExceedsTierLeafLimit) => {
                    PlanError {
                        pointer: "/topology/spine_sku".to_string(),
                        ..e
                    }
                }
                _ => e,
            }
        })
        .unwrap_or_else(|| {
            PlanError::field(
                "/topology/design",
                ErrorCode::DesignDoesNotFit,
                format!(
                    "{}: no design meets the request (design {:?})",
                    fabric.as_str(),
                    r.design
                ),
            )
        });
    // Advice for a reader, left out of a sweep's figures.
    let suggestions = if detail == Detail::Full {
        suggestions(r, fabric, parts)
    } else {
        Vec::new()
    };
    infeasible(fabric, e, suggestions)
}

/// What would make the fabric buildable: other switches, more planes, more tiers. A split is
/// suggested only when a module carries its links in the NIC's cage (the profile's NIC module
/// at the split speed, or one the catalog fits): a ConnectX-7's one OSFP cage has no 2 x 200G
/// module, so planes = 2 is not advice.
fn suggestions(r: &inputs::Resolved, fabric: Fabric, parts: &Parts<'_>) -> Vec<String> {
    let catalog = &r.catalog;
    let others: Vec<sizing::SwitchSpec> = catalog
        .data
        .switches
        .iter()
        .filter(|s| s.fabrics.contains(&fabric))
        .map(switch_spec)
        .collect();
    let nic_splits = |planes: u32| {
        let split_speed = r.nic_speed_gbps / planes.max(1);
        parts
            .profile
            .cabling
            .iter()
            .find(|c| c.link_speed_gbps == split_speed)
            .and_then(|c| c.node_leaf.nic_module.as_deref())
            .and_then(|sku| catalog.transceiver(sku))
            .is_some_and(|m| bom::nic_side_module(catalog, parts.nic, m, planes).fits)
    };
    let (cluster, opts) = cluster_and_options(r, parts);
    sizing::feasibility::suggestions(
        &cluster,
        &switch_spec(parts.switch),
        &opts,
        &others,
        &nic_splits,
    )
}
