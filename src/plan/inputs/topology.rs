//! The topology a request asks for: planes, the switch, the design's settings and cabling.

use crate::catalog::Catalog;
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
use crate::perf::RoceTuning;
use crate::plan::error::PlanError;
use crate::plan::request::*;

use super::nic::nic_for;

/// The topology settings of one plan, defaults filled in.
pub(super) struct Topology {
    /// The request's planes; `None`: per fabric, [`default_planes`].
    pub planes: Option<u32>,
    pub oversubscription: f64,
    pub rail_optimized: bool,
    pub max_tiers: u8,
    pub design: crate::sizing::DesignChoice,
    pub nodes_per_rack: Option<u32>,
    pub switch_sku: Option<String>,
    pub spine_sku: Option<String>,
    pub nic_sku: Option<String>,
    pub in_network_reduction: bool,
    pub roce_tuning: RoceTuning,
    pub nvlink_domain: NvlinkDomain,
    pub cabling: CablingRequest,
}

/// The request's topology, its planes and switch checked against the NIC and the fabrics.
pub(super) fn resolve(
    req: &PlanRequest,
    catalog: &Catalog,
    nic_speed_gbps: u32,
    fabrics: &[Fabric],
) -> Result<Topology, PlanError> {
    let topo = req.topology.clone().unwrap_or_default();
    // `None`: per fabric, as its NIC runs the speed (`default_planes`).
    let planes = topo.planes.map(Planes::get);
    check_planes(planes, nic_speed_gbps)?;
    if let Some(sku) = &topo.switch_sku {
        check_switch(catalog, sku, fabrics, "/topology/switch_sku")?;
    }
    if let Some(sku) = &topo.spine_sku {
        check_switch(catalog, sku, fabrics, "/topology/spine_sku")?;
    }
    if let Some(sku) = &topo.nic_sku {
        check_nic(catalog, sku, fabrics, nic_speed_gbps)?;
    }
    if let Some(cabling) = &topo.cabling {
        check_cabling_skus(catalog, cabling)?;
    }
    Ok(Topology {
        planes,
        oversubscription: topo
            .oversubscription
            .map(Oversubscription::get)
            .unwrap_or(1.0),
        rail_optimized: topo.rail_optimized.unwrap_or(true),
        max_tiers: topo.max_tiers.unwrap_or_default().get(),
        design: topo.design.unwrap_or_default(),
        nodes_per_rack: topo.nodes_per_rack.map(NodesPerRack::get),
        in_network_reduction: topo.in_network_reduction.unwrap_or(false),
        roce_tuning: topo.roce_tuning.unwrap_or_default(),
        nvlink_domain: topo.nvlink_domain.unwrap_or_default(),
        cabling: topo.cabling.clone().unwrap_or_default(),
        switch_sku: topo.switch_sku,
        spine_sku: topo.spine_sku,
        nic_sku: topo.nic_sku,
    })
}

/// Planes must split the NIC's speed into equal links.
fn check_planes(planes: Option<u32>, nic_speed_gbps: u32) -> Result<(), PlanError> {
    if let Some(planes) = planes
        && !nic_speed_gbps.is_multiple_of(planes)
    {
        return Err(PlanError::field(
            "/topology/planes",
            ErrorCode::PlanesDoNotDivide,
            format!("{planes} planes cannot split a {nic_speed_gbps} Gb/s NIC into equal links"),
        ));
    }
    Ok(())
}

/// A switch the request names (at `pointer`: the leaves' or the spines') must be in the
/// catalog and run every fabric asked for.
fn check_switch(
    catalog: &Catalog,
    sku: &str,
    fabrics: &[Fabric],
    pointer: &str,
) -> Result<(), PlanError> {
    let sw = catalog.switch(sku).ok_or_else(|| {
        PlanError::field(
            pointer,
            ErrorCode::UnknownSku,
            format!("no switch '{sku}' in catalog '{}'", catalog.id()),
        )
    })?;
    runs_every_fabric(
        (pointer, ErrorCode::SwitchCannotRunFabric),
        &format!("switch '{sku}'"),
        &sw.fabrics,
        fabrics,
    )
}

/// A part the request names (`part`: "switch 'x'") runs every fabric asked for, else the 422
/// at `pointer` that lists the fabrics it runs.
fn runs_every_fabric(
    (pointer, code): (&str, ErrorCode),
    part: &str,
    runs: &[Fabric],
    asked: &[Fabric],
) -> Result<(), PlanError> {
    match asked.iter().find(|f| !runs.contains(f)) {
        None => Ok(()),
        Some(f) => Err(PlanError::field(
            pointer,
            code,
            format!(
                "{part} cannot run {}; request only the fabrics it runs ({})",
                f.as_str(),
                runs.iter()
                    .map(|f| f.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// The NIC the request names must be in the catalog, run every fabric asked for (adaptive
/// routing included: a NIC the catalog does not list for `roce_adaptive` lacks it, per its
/// source) and run the speed the plan uses.
fn check_nic(
    catalog: &Catalog,
    sku: &str,
    fabrics: &[Fabric],
    nic_speed_gbps: u32,
) -> Result<(), PlanError> {
    let nic = catalog.nic(sku).ok_or_else(|| {
        PlanError::field(
            "/topology/nic_sku",
            ErrorCode::UnknownSku,
            format!("no NIC '{sku}' in catalog '{}'", catalog.id()),
        )
    })?;
    runs_every_fabric(
        ("/topology/nic_sku", ErrorCode::NicCannotRunFabric),
        &format!("NIC '{sku}'"),
        &nic.fabrics,
        fabrics,
    )?;
    if nic.speed_gbps != nic_speed_gbps {
        return Err(PlanError::field(
            "/topology/nic_sku",
            ErrorCode::NicSpeedMismatch,
            format!(
                "NIC '{sku}' runs {} Gb/s, but nic_speed_gbps is {nic_speed_gbps}; leave nic_speed_gbps out to use the NIC's speed",
                nic.speed_gbps
            ),
        ));
    }
    Ok(())
}

/// Every SKU the request's cabling names is in the catalog, at every tier it gives, whether
/// or not the plan builds that tier (#44: `topology.cabling.spine_core.cable=doesnotexist` at
/// 1,024 GPUs, two tiers, was silently accepted). The speeds are checked where a tier is built.
fn check_cabling_skus(
    catalog: &Catalog,
    cabling: &crate::plan::request::CablingRequest,
) -> Result<(), PlanError> {
    let tiers = [
        ("node_leaf", &cabling.node_leaf),
        ("leaf_spine", &cabling.leaf_spine),
        ("spine_core", &cabling.spine_core),
    ];
    for (tier, given) in tiers {
        let Some(t) = given else { continue };
        if catalog.cable(&t.cable).is_none() {
            return Err(PlanError::field(
                &format!("/topology/cabling/{tier}/cable"),
                ErrorCode::UnknownSku,
                format!("no cable '{}' in catalog '{}'", t.cable, catalog.id()),
            ));
        }
        for (which, sku) in [
            ("nic_module", &t.nic_module),
            ("switch_module", &t.switch_module),
        ] {
            if let Some(sku) = sku
                && catalog.transceiver(sku).is_none()
            {
                return Err(PlanError::field(
                    &format!("/topology/cabling/{tier}/{which}"),
                    ErrorCode::UnknownSku,
                    format!("no transceiver '{sku}' in catalog '{}'", catalog.id()),
                ));
            }
        }
    }
    Ok(())
}

/// In-network reduction asked for beside an Ethernet fabric, which plans without it.
pub(super) fn warn_in_network_reduction(
    topo: &Topology,
    fabrics: &[Fabric],
    warnings: &mut Vec<String>,
) {
    if topo.in_network_reduction && fabrics.iter().any(|f| f.is_ethernet()) {
        warnings.push(
            "Ethernet: in-network reduction (topology.in_network_reduction, SHARP) runs on InfiniBand switches only; the Ethernet fabrics are planned without it".to_string(),
        );
    }
}

/// The topology as echoed in the normalized request.
pub(super) fn echo(
    topo: &Topology,
    catalog: &Catalog,
    fabrics: &[Fabric],
    nic_speed_gbps: u32,
) -> TopologyRequest {
    TopologyRequest {
        oversubscription: Some(Oversubscription::echo(topo.oversubscription)),
        rail_optimized: Some(topo.rail_optimized),
        planes: echoed_planes(topo.planes, catalog, fabrics, nic_speed_gbps),
        max_tiers: Some(MaxTiers::echo(topo.max_tiers)),
        design: Some(topo.design),
        nodes_per_rack: topo.nodes_per_rack.map(NodesPerRack::echo),
        switch_sku: topo.switch_sku.clone(),
        spine_sku: topo.spine_sku.clone(),
        nic_sku: topo.nic_sku.clone(),
        in_network_reduction: Some(topo.in_network_reduction),
        roce_tuning: Some(topo.roce_tuning),
        nvlink_domain: Some(topo.nvlink_domain),
        cabling: Some(topo.cabling.clone()),
    }
}

/// Not given: the planes every requested fabric's NIC runs (1, or 2 for ConnectX-8 on Ethernet
/// alone), else left out (each fabric runs its NIC's links, reported in its `topology.planes`).
fn echoed_planes(
    planes: Option<u32>,
    catalog: &Catalog,
    fabrics: &[Fabric],
    nic_speed_gbps: u32,
) -> Option<Planes> {
    match planes {
        Some(p) => Some(Planes::echo(p)),
        None => {
            let mut per_fabric = fabrics
                .iter()
                .map(|&f| default_planes(nic_for(catalog, f, nic_speed_gbps), f, nic_speed_gbps));
            let first = per_fabric.next().unwrap_or(1);
            per_fabric.all(|p| p == first).then(|| Planes::echo(first))
        }
    }
}

/// Planes of a fabric when the request gives none: one link per NIC, unless the NIC cannot run
/// its speed as one link on this fabric (ConnectX-8: 800G InfiniBand, at most 400GbE per link),
/// then as many planes as it runs links (2 × 400G; NVIDIA's B300 Spectrum-X designs run two
/// 400G planes per GPU).
pub fn default_planes(
    nic: Option<&crate::catalog::Nic>,
    fabric: Fabric,
    nic_speed_gbps: u32,
) -> u32 {
    match nic.and_then(|n| n.ethernet_max_link_gbps) {
        Some(max)
            if fabric.is_ethernet()
                && max > 0
                && nic_speed_gbps > max
                && nic_speed_gbps.is_multiple_of(max) =>
        {
            nic_speed_gbps / max
        }
        _ => 1,
    }
}
