//! The pipeline: request → resolve (defaults, catalog) → per fabric {sizing → BOM → performance
//! → cost} → comparison → plan. Plain functions over plain data; no HTTP.

pub mod bom;
pub mod cache;
pub mod inputs;
pub mod request;
pub mod sweep;

use rust_decimal::Decimal;
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::catalog::{CatalogSet, TierCabling};
use crate::cost::{self, Capex, Category, Comparison, FabricCostInput, GpuIdle, OpexPerYear, Tco};
use crate::fabric::Fabric;
use crate::perf::{self, PerfResult};
use crate::sizing::{self, Topology};

pub use request::PlanRequest;

/// Why a plan cannot be made from a (syntactically valid) request: names the input.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanError {
    /// JSON pointer of the input at fault.
    pub pointer: String,
    /// Stable machine code.
    pub code: String,
    /// What is wrong and what would work.
    pub detail: String,
}

impl PlanError {
    pub fn field(pointer: &str, code: &str, detail: impl Into<String>) -> PlanError {
        PlanError {
            pointer: pointer.to_string(),
            code: code.to_string(),
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.pointer, self.detail)
    }
}

impl std::error::Error for PlanError {}

impl From<cost::CostError> for PlanError {
    fn from(e: cost::CostError) -> PlanError {
        PlanError::field(&e.pointer(), e.code(), e.to_string())
    }
}

/// The catalog that priced a plan.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CatalogRef {
    /// Catalog id.
    pub id: String,
    /// Catalog version.
    pub version: String,
    /// SHA-256 of the catalog file.
    pub sha256: String,
}

/// One BOM line: a catalog SKU, its quantity and counting unit, its price and power.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct BomLineOut {
    /// Catalog SKU (see `GET /v1/catalogs/{id}`).
    pub sku: String,
    /// Vendor as in the catalog (the key of `prices.discounts.vendor`).
    pub vendor: String,
    /// `nic`, `switch`, `optic`, `cable` or `license`.
    pub category: Category,
    /// What the line is and where it sits.
    pub description: String,
    /// How many.
    pub quantity: u64,
    /// Counting unit of `quantity`.
    pub unit: String,
    /// How `quantity` follows from the topology's link and port counts.
    pub derivation: String,
    /// Catalog list price per unit, USD.
    pub list_unit_price_usd: Decimal,
    /// Net price per unit after overrides and discounts, USD.
    pub unit_price_usd: Decimal,
    /// quantity × unit_price_usd, USD.
    pub extended_price_usd: Decimal,
    /// Typical power per unit, W.
    pub power_w: Decimal,
    /// quantity × power_w, W.
    pub extended_power_w: Decimal,
    /// True when the buyer overrode the price.
    pub price_overridden: bool,
    /// True when the catalog price is a placeholder (grade P): get a quote.
    pub placeholder_price: bool,
    /// Source of the catalog figures.
    pub source: String,
}

/// Everything the plan says about one fabric.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FabricPlan {
    /// `infiniband`, `roce` or `roce_adaptive`.
    pub fabric: Fabric,
    /// NIC SKU used.
    pub nic_sku: String,
    /// Sized topology: tiers, switch counts, links (totals across planes).
    pub topology: Topology,
    /// Bill of materials.
    pub bom: Vec<BomLineOut>,
    /// Capex by category, USD.
    pub capex: Capex,
    /// Yearly operating cost, USD per year.
    pub opex_per_year: OpexPerYear,
    /// Multi-year TCO of the network, USD.
    pub tco: Tco,
    /// All-reduce model: time, bandwidth, exposed communication, GPU idle fraction.
    pub performance: PerfResult,
    /// GPU time lost to the network, GPU-hours and USD.
    pub gpu_idle: GpuIdle,
    /// tco.total_usd + gpu_idle.cost_total_usd, USD.
    pub total_cost_usd: Decimal,
    /// total_cost_usd per useful GPU-hour over the horizon, USD; null when none.
    pub cost_per_useful_gpu_hour_usd: Option<Decimal>,
}

/// A fabric plan: sizing, BOM, performance and cost per fabric, side by side.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Plan {
    /// Stable id: SHA-256 of the normalized request and the catalog's SHA-256 (first 16 bytes,
    /// hex). Same request + same catalog ⇒ same id.
    pub plan_id: String,
    /// The catalog that priced the plan.
    pub catalog: CatalogRef,
    /// The request with every default filled in (post it back to reproduce the plan).
    pub inputs: PlanRequest,
    /// Caveats: placeholder prices, quotes required, assumptions.
    pub warnings: Vec<String>,
    /// One result per requested fabric, in request order.
    pub fabrics: Vec<FabricPlan>,
    /// Side-by-side comparison; null with a single fabric.
    pub comparison: Option<Comparison>,
}

fn push_unique(warnings: &mut Vec<String>, w: String) {
    if !warnings.contains(&w) {
        warnings.push(w);
    }
}

/// Makes a plan.
pub fn build_plan(req: &PlanRequest, catalogs: &CatalogSet) -> Result<Plan, PlanError> {
    let r = inputs::resolve(req, catalogs)?;
    let catalog = &r.catalog;
    let mut warnings = r.warnings.clone();
    let mut fabrics = Vec::with_capacity(r.fabrics.len());
    let mut costs = Vec::with_capacity(r.fabrics.len());

    for &fabric in &r.fabrics {
        let profile = catalog.profile(fabric).ok_or_else(|| {
            PlanError::field(
                "/fabrics",
                "no_profile",
                format!(
                    "catalog '{}' has no {} profile",
                    catalog.id(),
                    fabric.as_str()
                ),
            )
        })?;
        let link_speed = r.nic_speed_gbps / r.planes.max(1);
        let switch_sku = match &r.switch_sku {
            Some(s) => s.clone(),
            None => profile.switch_by_link_speed.get(&link_speed.to_string()).cloned().ok_or_else(|| {
                PlanError::field(
                    "/nic_speed_gbps",
                    "no_switch_for_speed",
                    format!(
                        "the {} profile has no switch for {link_speed} Gb/s links ({} Gb/s NIC over {} plane(s)); it has: {}",
                        fabric.as_str(),
                        r.nic_speed_gbps,
                        r.planes,
                        profile.switch_by_link_speed.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                )
            })?,
        };
        let switch = catalog.switch(&switch_sku).ok_or_else(|| {
            PlanError::field(
                "/topology/switch_sku",
                "unknown_sku",
                format!("no switch '{switch_sku}'"),
            )
        })?;
        let nic_sku = profile
            .nic_by_speed
            .get(&r.nic_speed_gbps.to_string())
            .ok_or_else(|| {
                PlanError::field(
                    "/nic_speed_gbps",
                    "no_nic_for_speed",
                    format!(
                        "the {} profile has no {} Gb/s NIC",
                        fabric.as_str(),
                        r.nic_speed_gbps
                    ),
                )
            })?;
        let nic = catalog.nic(nic_sku).ok_or_else(|| {
            PlanError::field(
                "/nic_speed_gbps",
                "unknown_sku",
                format!("no NIC '{nic_sku}'"),
            )
        })?;

        // 1. Sizing.
        let topology = sizing::size(
            &sizing::ClusterSpec {
                gpus: r.gpus,
                gpus_per_node: r.gpus_per_node,
                nics_per_node: r.nics_per_node,
                nic_speed_gbps: r.nic_speed_gbps,
            },
            &sizing::SwitchSpec {
                sku: switch.sku.clone(),
                ports: switch.ports,
                port_speed_gbps: switch.port_speed_gbps,
                link_speeds_gbps: switch.link_speeds_gbps.clone(),
                ports_per_cage: switch.ports_per_cage,
            },
            &sizing::TopologyOptions {
                planes: r.planes,
                oversubscription: r.oversubscription,
                rail_optimized: r.rail_optimized,
                max_tiers: r.max_tiers,
            },
        )
        .map_err(|e| sizing_error(&e, fabric))?;

        // 2. Bill of materials.
        let profile_cabling = profile
            .cabling
            .iter()
            .find(|c| c.link_speed_gbps == topology.link_speed_gbps);
        let pick = |over: &Option<TierCabling>,
                    from_profile: Option<&TierCabling>,
                    tier: &str|
         -> Result<TierCabling, PlanError> {
            over.clone().or_else(|| from_profile.cloned()).ok_or_else(|| {
                PlanError::field(
                    "/nic_speed_gbps",
                    "no_cabling_for_speed",
                    format!(
                        "the {} profile has no {tier} cabling for {} Gb/s links; give topology.cabling.{tier}",
                        fabric.as_str(),
                        topology.link_speed_gbps
                    ),
                )
            })
        };
        let node_leaf = pick(
            &r.cabling.node_leaf,
            profile_cabling.map(|c| &c.node_leaf),
            "node_leaf",
        )?;
        let leaf_spine = pick(
            &r.cabling.leaf_spine,
            profile_cabling.map(|c| &c.leaf_spine),
            "leaf_spine",
        )?;
        let spine_core = pick(
            &r.cabling.spine_core,
            profile_cabling.map(|c| &c.spine_core),
            "spine_core",
        )?;
        let items = bom::bill_of_materials(
            &topology,
            &bom::BomContext {
                catalog,
                switch,
                nic,
                cabling: [&node_leaf, &leaf_spine, &spine_core],
                nics_per_node: r.nics_per_node,
                pointer_for_cabling: "/topology/cabling",
            },
        )?;
        for it in &items {
            if it.placeholder_price && !r.adjustments.overrides.contains_key(&it.line.sku) {
                push_unique(
                    &mut warnings,
                    format!(
                        "{}: the catalog price of {} is a placeholder (grade P) — get a quote or set prices.overrides",
                        fabric.as_str(),
                        it.line.sku
                    ),
                );
            }
            if it.placeholder_power {
                push_unique(
                    &mut warnings,
                    format!(
                        "{}: the power figure of {} is a placeholder (not published)",
                        fabric.as_str(),
                        it.line.sku
                    ),
                );
            }
        }

        // 3. Performance.
        let perf_input = perf::PerfInput {
            gpus: r.gpus,
            gpus_per_node: r.gpus_per_node,
            nics_per_node: r.nics_per_node,
            gpu: perf::GpuSpec {
                nvlink_ring_busbw_gbytes_per_s: r.gpu.nvlink_ring_busbw_gbytes_per_s,
                nvls_busbw_gbytes_per_s: r.gpu.nvls_busbw_gbytes_per_s,
                gpus_per_node_max: r.gpu.gpus_per_node.max(r.gpus_per_node),
                dense_bf16_tflops: r.gpu.dense_bf16_tflops,
                nvlink_domain_gpus: r.gpu.nvlink_domain_gpus,
            },
            nic: perf::NicSpec {
                speed_gbps: r.nic_speed_gbps,
                pcie_gen: nic.pcie_gen.min(r.gpu.pcie_gen),
                pcie_lanes: nic.pcie_lanes,
            },
            path: perf::FabricPath {
                fabric,
                tiers: topology.tiers,
                planes: topology.planes,
                oversubscription: r.oversubscription,
                rail_optimized: r.rail_optimized,
                nodes_per_leaf: topology.nodes_per_leaf.max(1),
                leaf_uplinks: topology.leaf_uplinks.max(1),
                switch_latency_ns: f64::from(switch.latency_ns),
                roce_tuning: r.roce_tuning,
                in_network_reduction: r.in_network_reduction,
            },
            workload: r.workload,
        };
        let mut performance = perf::evaluate(&perf_input).map_err(perf_error)?;
        if fabric == Fabric::Roce {
            // Both RoCE tunings side by side: the same job with the other setting.
            let other = match r.roce_tuning {
                perf::RoceTuning::Default => perf::RoceTuning::Tuned,
                perf::RoceTuning::Tuned => perf::RoceTuning::Default,
            };
            let mut alt_input = perf_input;
            alt_input.path.roce_tuning = other;
            let alt = perf::evaluate(&alt_input).map_err(perf_error)?;
            let (d, t) = match r.roce_tuning {
                perf::RoceTuning::Default => (&performance, &alt),
                perf::RoceTuning::Tuned => (&alt, &performance),
            };
            let row = |tuning: perf::RoceTuning, p: &perf::PerfResult| perf::RoceTuningRow {
                roce_tuning: tuning,
                busbw_gbytes_per_s: p.busbw_gbytes_per_s,
                exposed_comm_ms: p.exposed_comm_ms,
                gpu_idle_fraction: p.gpu_idle_fraction,
            };
            let rows = vec![
                row(perf::RoceTuning::Default, d),
                row(perf::RoceTuning::Tuned, t),
            ];
            performance.roce_tuning_side_by_side = rows;
        }
        let parts = failure_parts(&items);
        let busy =
            rust_decimal::prelude::ToPrimitive::to_f64(&r.economics.busy_fraction).unwrap_or(1.0);
        let failure_gpu_hours =
            cost::failure::failure_gpu_hours_per_year(&parts, &r.reliability, r.gpus, busy);

        // 4. Cost.
        let endpoints = topology.links.node_leaf;
        let switches = topology
            .leaf_switches
            .checked_add(topology.spine_switches)
            .and_then(|s| s.checked_add(topology.core_switches))
            .ok_or_else(|| PlanError::field("/gpus", "too_large", "too many switches to count"))?;
        let cost = cost::fabric_cost(
            &FabricCostInput {
                fabric,
                gpus: r.gpus,
                endpoints,
                switches,
                lines: items.iter().map(|i| i.line.clone()).collect(),
                gpu_idle_fraction: performance.gpu_idle_fraction,
                failure_gpu_hours_per_year: failure_gpu_hours,
                traffic: performance
                    .collectives
                    .iter()
                    .map(|c| cost::TrafficShare {
                        label: format!(
                            "the {} {} over {} GPUs ({})",
                            c.parallelism,
                            c.kind.replace('_', "-"),
                            c.group_size,
                            c.placement
                        ),
                        exposed_ms: c.exposed_ms,
                    })
                    .collect(),
            },
            &r.adjustments,
            &r.economics,
        )?;
        for w in &cost.warnings {
            push_unique(&mut warnings, w.clone());
        }
        let bom = items
            .iter()
            .zip(&cost.bom)
            .map(|(it, p)| BomLineOut {
                sku: p.sku.clone(),
                vendor: p.vendor.clone(),
                category: p.category,
                description: p.description.clone(),
                quantity: p.quantity,
                unit: it.unit.clone(),
                derivation: it.derivation.clone(),
                list_unit_price_usd: p.list_unit_price_usd,
                unit_price_usd: p.unit_price_usd,
                extended_price_usd: p.extended_price_usd,
                power_w: p.power_w,
                extended_power_w: p.extended_power_w,
                price_overridden: p.price_overridden,
                placeholder_price: it.placeholder_price,
                source: it.source.clone(),
            })
            .collect();
        fabrics.push(FabricPlan {
            fabric,
            nic_sku: nic.sku.clone(),
            topology,
            bom,
            capex: cost.capex.clone(),
            opex_per_year: cost.opex_per_year.clone(),
            tco: cost.tco.clone(),
            performance,
            gpu_idle: cost.gpu_idle.clone(),
            total_cost_usd: cost.total_cost_usd,
            cost_per_useful_gpu_hour_usd: cost.cost_per_useful_gpu_hour_usd,
        });
        costs.push((fabric, cost));
    }

    let pairs: Vec<(Fabric, &cost::FabricCost)> = costs.iter().map(|(f, c)| (*f, c)).collect();
    let comparison = cost::compare(&pairs, &r.economics, r.gpus)?;

    let catalog_ref = CatalogRef {
        id: catalog.id().to_string(),
        version: catalog.data.version.clone(),
        sha256: catalog.sha256.clone(),
    };
    let plan_id = plan_id(&r.normalized, &catalog.sha256);
    Ok(Plan {
        plan_id,
        catalog: catalog_ref,
        inputs: r.normalized,
        warnings,
        fabrics,
        comparison,
    })
}

/// SHA-256 over the normalized request's JSON and the catalog hash; 32 hex characters.
pub fn plan_id(normalized: &PlanRequest, catalog_sha256: &str) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_vec(normalized).unwrap_or_default());
    h.update(b"\n");
    h.update(catalog_sha256.as_bytes());
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn sizing_error(e: &sizing::SizingError, fabric: Fabric) -> PlanError {
    let pointer = match e.field() {
        Some("planes") => "/topology/planes",
        Some("oversubscription") => "/topology/oversubscription",
        Some("max_tiers") => "/topology/max_tiers",
        Some("rail_optimized") => "/topology/rail_optimized",
        Some("nic_speed_gbps") => "/nic_speed_gbps",
        Some("gpus_per_node") => "/gpus_per_node",
        Some("nics_per_node") => "/nics_per_node",
        _ => "/gpus",
    };
    PlanError::field(pointer, e.code(), format!("{}: {e}", fabric.as_str()))
}

fn perf_error(e: perf::PerfError) -> PlanError {
    let pointer = match &e {
        perf::PerfError::ModelDoesNotFit { .. } => "/workload/tensor_parallel".to_string(),
        perf::PerfError::OutOfRange { field, .. } => {
            let last = field.rsplit('.').next().unwrap_or(field);
            match last {
                "message_bytes"
                | "model_params_billion"
                | "bytes_per_gradient"
                | "tensor_parallel"
                | "pipeline_parallel"
                | "step_compute_ms"
                | "bucket_mb"
                | "context_parallel"
                | "expert_parallel"
                | "moe_top_k"
                | "data_parallel"
                | "sequence_length"
                | "global_batch_tokens"
                | "hidden_size"
                | "active_params_billion"
                | "mfu"
                | "background_load" => format!("/workload/{last}"),
                "oversubscription" | "planes" => format!("/topology/{last}"),
                "gpus" | "gpus_per_node" | "nics_per_node" => format!("/{last}"),
                _ => "/workload".to_string(),
            }
        }
    };
    PlanError::field(&pointer, "performance_model", e.to_string())
}

/// Failure-prone parts of a fabric from its BOM lines: NICs, switches, optics, cables.
fn failure_parts(items: &[bom::BomItem]) -> cost::failure::PartCounts {
    let mut p = cost::failure::PartCounts::default();
    for it in items {
        let q = it.line.quantity;
        match it.line.category {
            Category::Nic => p.nics = p.nics.saturating_add(q),
            Category::Switch => p.switches = p.switches.saturating_add(q),
            Category::Optic => p.transceivers = p.transceivers.saturating_add(q),
            Category::Cable => p.cables = p.cables.saturating_add(q),
            _ => {}
        }
    }
    p
}

#[cfg(test)]
mod workload_tests;
