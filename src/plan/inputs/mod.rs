//! Resolves a request against a catalog: every default filled in, every catalog reference
//! checked. Produces the concrete values the pipeline uses and the normalized request that the
//! plan echoes as `inputs` (post it back and you get the same plan).

use std::sync::Arc;

use super::error::PlanError;
use super::request::*;
use crate::catalog::{Catalog, CatalogSet, Gpu};
use crate::cost::{Economics, PriceAdjustments, failure};
use crate::fabric::Fabric;
use crate::perf::{RoceTuning, Workload};

/// Default GPU model.
pub const DEFAULT_GPU_MODEL: &str = "h100";
/// Default NIC speed, Gb/s (ConnectX-7 / NDR class).
pub const DEFAULT_NIC_SPEED_GBPS: u32 = 400;

pub use crate::fabric::NoteScope;
pub use hardware::nvlink_domain_gpus;
pub use nic::nic_for;
pub use placement::straddle_words;
pub use prices::unknown_vendor;
pub use topology::default_planes;

mod economics;
mod experts;
mod hardware;
mod nic;
mod placeholders;
mod placement;
mod prices;
mod reliability;
mod topology;
mod workload;

/// Concrete values for one plan.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub catalog: Arc<Catalog>,
    pub gpu: Gpu,
    pub gpus: u32,
    pub gpus_per_node: u32,
    /// GPUs in one NVLink domain ([`nvlink_domain_gpus`]): the server, or an NVL72 rack.
    pub nvlink_domain_gpus: u32,
    pub nics_per_node: u32,
    pub nic_speed_gbps: u32,
    /// The server's own NIC the plan uses (the GPU's `nic_on_board`, $0): at the speed asked,
    /// when the server has one for each NIC asked; `None`: the fabric profile's add-in card.
    pub nic_on_board: Option<String>,
    pub fabrics: Vec<Fabric>,
    pub oversubscription: f64,
    pub rail_optimized: bool,
    /// The request's planes; `None`: per fabric, [`default_planes`].
    pub planes: Option<u32>,
    pub max_tiers: u8,
    /// `auto` or a named design (docs/sizing.md "Designs").
    pub design: crate::sizing::DesignChoice,
    /// Servers per rack, when the buyer gave it (sizes `tor_copper`).
    pub nodes_per_rack: Option<u32>,
    pub switch_sku: Option<String>,
    /// `topology.spine_sku`: the spines' model when it is not the leaves'.
    pub spine_sku: Option<String>,
    /// `topology.nic_sku`: the NIC every fabric buys, instead of its profile's.
    pub nic_sku: Option<String>,
    pub in_network_reduction: bool,
    pub roce_tuning: RoceTuning,
    pub cabling: CablingRequest,
    pub workload: Workload,
    /// `workload.train_tokens`: the training run to time, tokens.
    pub train_tokens: Option<f64>,
    pub reliability: failure::Reliability,
    pub economics: Economics,
    pub gpu_hour_basis: GpuHourBasis,
    pub adjustments: PriceAdjustments,
    /// Assumption notes raised while resolving (e.g. no GPU price).
    pub warnings: Vec<String>,
    /// Notes about figures only some fabrics count (the NOS licence's price, a placeholder
    /// operating figure): the plan says each only when it builds a fabric of its scope (audit
    /// 25 F1: a NOS note was said for an Ethernet fabric that could not be built, beside an
    /// InfiniBand one).
    pub fabric_notes: Vec<(NoteScope, String)>,
    /// The request with every default filled in.
    pub normalized: PlanRequest,
}

/// Fills defaults and checks catalog references. The steps run in this order, which is the
/// order of their errors (the first failing check wins) and of their warnings.
pub fn resolve(req: &PlanRequest, catalogs: &CatalogSet) -> Result<Resolved, PlanError> {
    let catalog = hardware::catalog(req, catalogs)?;
    let hw = hardware::resolve(req, &catalog)?;
    let topology = topology::resolve(req, &catalog, hw.nic_speed_gbps, &hw.fabrics)?;
    let job = workload::resolve(req, hw.gpus, hw.gpus_per_node)?;
    let reliability = reliability::resolve(req);
    let mut warnings: Vec<String> = job.expert_note.clone().into_iter().collect();
    placement::warn(&hw, &job, &mut warnings);
    let nic_on_board = nic::on_board(&catalog, &hw, &mut warnings);
    placement::warn_inside_one_domain(&hw, &mut warnings);
    let costs = economics::resolve(req, &catalog, &hw.gpu, &mut warnings)?;
    let prices = prices::resolve(req, &catalog)?;
    topology::warn_in_network_reduction(&topology, &hw.fabrics, &mut warnings);
    let steps = Steps {
        catalog,
        hw,
        topology,
        job,
        reliability,
        costs,
        prices,
    };
    let normalized = normalize(req, &steps);
    Ok(steps.into_resolved(nic_on_board, warnings, normalized))
}

/// What the steps of [`resolve`] found.
struct Steps {
    catalog: Arc<Catalog>,
    hw: hardware::Hardware,
    topology: topology::Topology,
    job: workload::Job,
    reliability: failure::Reliability,
    costs: economics::Costs,
    prices: prices::Prices,
}

/// The request with every default filled in, as the plan echoes it.
fn normalize(req: &PlanRequest, s: &Steps) -> PlanRequest {
    let hw = &s.hw;
    PlanRequest {
        gpus: Gpus::echo(hw.gpus),
        gpu_model: Some(hw.gpu.id.clone()),
        gpus_per_node: Some(GpusPerNode::echo(hw.gpus_per_node)),
        nics_per_node: Some(NicsPerNode::echo(hw.nics_per_node)),
        nic_speed_gbps: Some(NicSpeedGbps::echo(hw.nic_speed_gbps)),
        fabrics: Some(hw.fabrics.clone()),
        // A pinned catalog stays pinned, to its whole hash (any prefix given plans the same).
        catalog: Some(
            match req.catalog.as_deref().map(crate::catalog::split_reference) {
                Some((_, Some(_))) => format!("{}@{}", s.catalog.id(), s.catalog.sha256),
                _ => s.catalog.id().to_string(),
            },
        ),
        topology: Some(topology::echo(
            &s.topology,
            &s.catalog,
            &hw.fabrics,
            hw.nic_speed_gbps,
        )),
        workload: Some(workload::echo(&s.job)),
        nccl: Some(workload::echo_nccl(&s.job)),
        model: Some(workload::echo_model(&s.job)),
        reliability: Some(reliability::echo(&s.reliability)),
        utilization: Some(economics::echo_utilization(&s.costs)),
        economics: Some(economics::echo(&s.costs)),
        prices: Some(prices::echo(&s.prices)),
        uncertainty: req.uncertainty.as_ref().map(|u| UncertaintyRequest {
            samples: Some(u.samples.unwrap_or_default()),
            seed: Some(u.seed.unwrap_or_default()),
            catalog_price_ranges: Some(u.catalog_price_ranges.unwrap_or(true)),
            model_error_ranges: Some(u.model_error_ranges.unwrap_or(true)),
            inputs: Some(u.inputs.clone().unwrap_or_default()),
        }),
    }
}

impl Steps {
    /// The concrete values for the plan.
    fn into_resolved(
        self,
        nic_on_board: Option<String>,
        warnings: Vec<String>,
        normalized: PlanRequest,
    ) -> Resolved {
        let Steps {
            catalog,
            hw,
            topology,
            job,
            reliability,
            costs,
            prices,
        } = self;
        Resolved {
            catalog,
            gpu: hw.gpu,
            gpus: hw.gpus,
            gpus_per_node: hw.gpus_per_node,
            nvlink_domain_gpus: hw.domain_gpus,
            nics_per_node: hw.nics_per_node,
            nic_speed_gbps: hw.nic_speed_gbps,
            nic_on_board,
            fabrics: hw.fabrics,
            oversubscription: topology.oversubscription,
            rail_optimized: topology.rail_optimized,
            planes: topology.planes,
            max_tiers: topology.max_tiers,
            design: topology.design,
            nodes_per_rack: topology.nodes_per_rack,
            switch_sku: topology.switch_sku,
            spine_sku: topology.spine_sku,
            nic_sku: topology.nic_sku,
            in_network_reduction: topology.in_network_reduction,
            roce_tuning: topology.roce_tuning,
            cabling: topology.cabling,
            train_tokens: job.train_tokens,
            workload: job.workload,
            reliability,
            economics: costs.economics,
            gpu_hour_basis: costs.gpu_hour_basis,
            adjustments: prices.adjustments,
            warnings,
            fabric_notes: costs.fabric_notes,
            normalized,
        }
    }
}
