//! Stage 2, size: each requested fabric's NIC, switch and cabling chosen from the catalog,
//! every design sized and priced at capex, the cheapest that meets the request kept with its
//! BOM quantities ([`SizedFabric`]), or the fabric said infeasible with what would help.

mod designs;
mod parts;
mod warnings;

use sha2::{Digest, Sha256};

use super::error::PlanError;
use super::options::Detail;
use super::output::{DesignAlternative, FabricPlan};
use super::request::PlanRequest;
use super::{bom, inputs};
use crate::catalog::Text;
use crate::cost::{self, Category};
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
use crate::sizing::{self, Topology};

/// A fabric sized for the request: the chosen design and its BOM quantities — everything that
/// stays fixed while prices, economics, the job or failure rates change (an uncertainty sample
/// re-prices and re-evaluates it without sizing again).
#[derive(Debug, Clone)]
pub struct SizedFabric {
    pub fabric: Fabric,
    pub nic_sku: Text,
    pub topology: Topology,
    pub design_alternatives: Vec<DesignAlternative>,
    /// The chosen design's BOM lines, and beside each (same index) its unit, derivation and
    /// source.
    pub lines: Vec<cost::BomLine>,
    pub notes: Vec<bom::LineNotes>,
    /// Port-to-port latency of the chosen switch, ns.
    pub switch_latency_ns: u32,
    /// The NIC's PCIe generation and lanes.
    pub nic_pcie_gen: u8,
    pub nic_pcie_lanes: u8,
    /// Failure-prone parts (NICs, switches, optics, cables).
    pub parts: cost::failure::PartCounts,
    /// NIC ports on the fabric.
    pub endpoints: u64,
    /// Switches on the fabric.
    pub switches: u64,
}

/// The request resolved and every requested fabric sized: what a plan and each uncertainty
/// sample start from.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The request as the client sent it, kept when it asks for an uncertainty analysis: each
    /// sample sets its values on it (so defaults that follow an input, such as the GPU-hour
    /// value from the PUE, follow the sampled value as in a plan made with that value).
    pub request: Option<PlanRequest>,
    pub resolved: inputs::Resolved,
    /// Sized fabrics, in request order (infeasible ones left out).
    pub sized: Vec<std::sync::Arc<SizedFabric>>,
}

/// One fabric sized, or infeasible (with the error a single-fabric request would have returned).
#[derive(Debug, Clone)]
pub(super) enum Sizing {
    /// Shared: a remembered sizing (`SizingMemo`) and the plan's `Prepared` hold the same one.
    Sized(std::sync::Arc<SizedFabric>),
    Infeasible(Box<FabricPlan>, PlanError),
}

pub(super) fn infeasible(fabric: Fabric, e: PlanError, suggestions: Vec<String>) -> Sizing {
    Sizing::Infeasible(
        Box::new(FabricPlan::infeasible(
            fabric,
            e.detail.clone(),
            suggestions,
        )),
        e,
    )
}

/// The sized fabrics of the last plan, remembered for the next one when the two differ only in
/// inputs sizing does not read (economics, utilization, workload, reliability): a sweep over
/// one of those re-prices and re-evaluates the same designs instead of sizing them again. The
/// key is the SHA-256 of the request without those sections and the catalog's hash.
#[derive(Debug, Default)]
pub struct SizingMemo {
    key: Option<[u8; 32]>,
    /// The detail the remembered sizing was built at (a figures sizing has no BOM text).
    detail: Option<Detail>,
    fabrics: Vec<(Sizing, Vec<String>)>,
    /// Plans that reused the remembered sizing.
    pub hits: usize,
}

impl SizingMemo {
    /// Whether sizing reads the input named `name` (dotted, as a sweep names it): everything
    /// but the sections [`SizingMemo::key`] leaves out. A sweep along such an input sizes at
    /// every point, so remembering its sizing would only cost.
    pub fn sizing_reads(name: &str) -> bool {
        let ignored = ["workload.", "reliability.", "utilization.", "economics."];
        !ignored.iter().any(|s| name.starts_with(s))
    }

    /// What sizing reads of a resolved request: everything but the sections it ignores.
    pub(super) fn key(r: &inputs::Resolved) -> Option<[u8; 32]> {
        let sizing_inputs = PlanRequest {
            workload: None,
            reliability: None,
            utilization: None,
            economics: None,
            uncertainty: None,
            ..r.normalized.clone()
        };
        let mut h = Sha256::new();
        h.update(crate::json::to_vec(&sizing_inputs).ok()?);
        h.update(b"\n");
        h.update(r.catalog.sha256.as_bytes());
        Some(h.finalize().into())
    }
}

/// Sizes every requested fabric (or recalls them from `memo`), with the warnings sizing raised
/// for each.
pub(super) fn size_all(
    r: &inputs::Resolved,
    memo: Option<&mut SizingMemo>,
    detail: Detail,
) -> Result<Vec<(Sizing, Vec<String>)>, PlanError> {
    let fresh = |r: &inputs::Resolved| -> Result<Vec<(Sizing, Vec<String>)>, PlanError> {
        r.fabrics
            .iter()
            .map(|&fabric| {
                let mut w = Vec::new();
                Ok((size_fabric(r, fabric, &mut w, detail)?, w))
            })
            .collect()
    };
    let Some(memo) = memo else {
        return fresh(r);
    };
    let key = SizingMemo::key(r);
    if key.is_some() && memo.key == key && memo.detail == Some(detail) {
        memo.hits += 1;
        return Ok(memo.fabrics.clone());
    }
    let out = fresh(r)?;
    memo.key = key;
    memo.detail = Some(detail);
    memo.fabrics = out.clone();
    Ok(out)
}

fn switch_spec(sw: &crate::catalog::Switch) -> sizing::SwitchSpec {
    sizing::SwitchSpec {
        sku: sw.part.sku.clone(),
        ports: sw.ports,
        port_speed_gbps: sw.port_speed_gbps,
        link_speeds_gbps: sw.link_speeds_gbps.clone(),
        ports_per_cage: sw.ports_per_cage,
    }
}

/// Sizes one fabric: every design, each priced at the plan's prices; the cheapest that meets
/// the request wins (docs/sizing.md "Designs", "Feasibility").
fn size_fabric(
    r: &inputs::Resolved,
    fabric: Fabric,
    warnings: &mut Vec<String>,
    detail: Detail,
) -> Result<Sizing, PlanError> {
    let parts = match parts::choose(r, fabric)? {
        Ok(p) => p,
        Err(infeasible) => return Ok(infeasible),
    };
    let cabling = match parts::cabling(r, fabric, &parts) {
        Ok(c) => c,
        Err(e) => return Ok(infeasible(fabric, e, Vec::new())),
    };
    let cabled = designs::Cabled::new(r, &parts, cabling);
    let designs = designs::size_each(r, fabric, &parts, &cabled)?;
    designs::tor_copper_note(r, fabric, &designs, warnings);
    let Some(chosen) = designs.chosen(r) else {
        return Ok(designs::none_meets(r, fabric, &parts, &designs, detail));
    };
    let design_alternatives = designs.alternatives(r, chosen);
    let Some(designs::SizedDesign {
        design, topology, ..
    }) = designs.sized.into_iter().nth(chosen)
    else {
        return Err(PlanError::field(
            "/gpus",
            ErrorCode::InternalError,
            "chosen design lost",
        ));
    };
    let ctx = cabled.for_design(design).unwrap_or(&cabled.ctx);
    let items = bom::bill_of_materials(&topology, ctx, detail)?;
    let built = warnings::Chosen {
        fabric,
        parts: &parts,
        ctx,
        topology: &topology,
    };
    warnings::cage_fit(&built, warnings);
    warnings::uplink_cage_fit(&built, warnings);
    warnings::spine_cage_fit(&built, warnings);
    warnings::nic_module_fit(&built, warnings);
    warnings::inexact_ratio(r, fabric, &topology, warnings);
    warnings::placeholders(r, fabric, &items, warnings);
    let chosen = Chosen {
        topology,
        design_alternatives,
        items,
        spine_latency_ns: ctx.spine.latency_ns,
    };
    sized(r, fabric, &parts, chosen).map(Sizing::Sized)
}

/// The chosen design, its BOM and the alternatives beside it.
struct Chosen {
    topology: Topology,
    design_alternatives: Vec<DesignAlternative>,
    items: Vec<bom::BomItem>,
    /// Port-to-port latency of its spines' model, ns.
    spine_latency_ns: u32,
}

/// The chosen design of a fabric with its BOM: what stays fixed while prices, economics, the
/// job or failure rates change.
fn sized(
    r: &inputs::Resolved,
    fabric: Fabric,
    parts: &parts::Parts<'_>,
    chosen: Chosen,
) -> Result<std::sync::Arc<SizedFabric>, PlanError> {
    let Chosen {
        topology,
        design_alternatives,
        items,
        spine_latency_ns,
    } = chosen;
    // A job inside one NVLink domain sends nothing over the scale-out fabric: a failed NIC,
    // switch or optic does not interrupt it.
    let failure_prone = if r.gpus <= r.nvlink_domain_gpus {
        cost::failure::PartCounts {
            planes: topology.planes,
            ..Default::default()
        }
    } else {
        failure_parts(&items, topology.planes)
    };
    let endpoints = topology.links.node_leaf;
    let switches = topology
        .leaf_switches
        .checked_add(topology.spine_switches)
        .and_then(|s| s.checked_add(topology.core_switches))
        .ok_or_else(|| {
            PlanError::field("/gpus", ErrorCode::TooLarge, "too many switches to count")
        })?;
    let (lines, notes) = items.into_iter().map(bom::BomItem::split).unzip();
    Ok(std::sync::Arc::new(SizedFabric {
        fabric,
        nic_sku: parts.nic.part.sku.clone(),
        topology,
        design_alternatives,
        lines,
        notes,
        // A path crosses leaves and spines; the slower model's latency is the hop's bound.
        // A path crosses leaves and spines; the slower model's latency bounds a hop.
        switch_latency_ns: parts.switch.latency_ns.max(spine_latency_ns),
        nic_pcie_gen: parts.nic.pcie_gen,
        nic_pcie_lanes: parts.nic.pcie_lanes,
        parts: failure_prone,
        endpoints,
        switches,
    }))
}

/// Failure-prone parts of a fabric from its BOM lines (NICs, switches, optics, cables) and its
/// planes.
fn failure_parts(items: &[bom::BomItem], planes: u32) -> cost::failure::PartCounts {
    let mut p = cost::failure::PartCounts {
        planes,
        ..Default::default()
    };
    for it in items {
        let q = it.line.quantity;
        // A NIC-side module carrying every plane of its NIC fails like the NIC.
        if let bom::Unit::NicModule { links } = it.notes.unit
            && planes >= 2
            && links >= planes
        {
            p.all_plane_modules = p.all_plane_modules.saturating_add(q);
        }
        // A chassis' fabric modules and supervisors are redundant (one failing stops no
        // link); a line card fails its links as a switch does.
        let redundant = matches!(
            it.notes.unit,
            bom::Unit::ChassisModule { kind } if kind != "line card"
        );
        match it.line.category {
            Category::Nic => p.nics = p.nics.saturating_add(q),
            Category::Switch if redundant => {}
            Category::Switch => p.switches = p.switches.saturating_add(q),
            Category::Optic => p.transceivers = p.transceivers.saturating_add(q),
            Category::Cable => p.cables = p.cables.saturating_add(q),
            _ => {}
        }
    }
    p
}
