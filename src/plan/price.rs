//! Stage 4, price: the cost model's input for a sized fabric and its time, its capex, opex,
//! TCO and idle cost, and the fabric's plan entry.

use super::error::{PlanError, perf_error};
use super::inputs;
use super::options::Detail;
use super::output::{BomLineOut, FabricPlan};
use super::size::SizedFabric;
use super::time::{
    cross_rack_ring_warning, forced_algorithm_warning, network_bound_warning,
    pcie_bound_nic_warning, perf_input, roce_tunings,
};
use crate::catalog::Text;
use crate::cost::{self, FabricCostInput};
use crate::fabric::Fabric;
use crate::perf;
use crate::words::push_unique;

/// Busy GPU-hours lost to failures of network parts above which a plan says what the failure
/// line assumes: 2 % (reached near 20,000 GPUs on one plane at the Llama 3 rates).
const FAILURE_SHARE_WARNED: f64 = 0.02;

/// Leaf–spine links beyond what the node links need at the realised ratio, as a share of the
/// node links, above which a plan says they are there.
const SPARE_UPLINKS_SAID: f64 = 0.10;

/// A two-tier fabric cables every leaf's full uplink share, as NVIDIA's published tables do,
/// whether its downlinks are all used or not: room to grow without recabling the spines, bought
/// now (audit 34: 72 NIC ports with 96 leaf–spine links on InfiniBand, 288 with 384 for 144
/// GB300 on RoCE, about $130K of modules and fibre, said only in docs/sizing.md). Said when
/// the spare links are at least [`SPARE_UPLINKS_SAID`] of the node links (1 SU of a SuperPOD,
/// 8 spare of 248, says nothing).
fn spare_uplinks_warning(s: &SizedFabric, warnings: &mut Vec<String>) {
    let t = &s.topology;
    // Two tiers: above them a core's own spare links would be a second count (audit 35).
    if t.tiers != 2 || t.spine_switches == 0 {
        return;
    }
    let (node, up) = (t.links.node_leaf, t.links.leaf_spine);
    let o = t.oversubscription_realised.max(1.0);
    let needed = (node as f64 / o).ceil() as u64;
    let spare = up.saturating_sub(needed);
    if spare == 0 || (spare as f64) < SPARE_UPLINKS_SAID * node as f64 {
        return;
    }
    let ratio = if (o - o.round()).abs() < 1e-9 {
        format!("{}:1", o.round())
    } else {
        format!("{o:.3}:1")
    };
    push_unique(
        warnings,
        format!(
            "{}: every leaf is cabled for its full uplink share ({} leaf–spine links for {} node links at {ratio}), so {spare} links are room to grow, their modules and fibre bought now; cabling only the used downlinks is not an option of this design",
            s.fabric.as_str(),
            up,
            node,
        ),
    );
}

/// The failure line charges every interruption to every GPU (one job spans the cluster, as
/// Llama 3's did): it grows with the square of the cluster and dominates the idle line at
/// 100,000 GPUs. Said when it passes [`FAILURE_SHARE_WARNED`] of busy GPU-hours.
fn failure_share_warning(
    r: &inputs::Resolved,
    fabric: Fabric,
    idle: &cost::GpuIdle,
    warnings: &mut Vec<String>,
) {
    use rust_decimal::prelude::ToPrimitive;
    // Busy GPU-hours as the idle cost counts them (`cost`'s one formula).
    let busy = cost::busy_gpu_hours_per_year(r.gpus, r.economics.busy_fraction)
        .ok()
        .and_then(|b| b.to_f64())
        .unwrap_or(0.0);
    if busy <= 0.0 {
        return;
    }
    let share = idle.failure_gpu_hours_per_year / busy;
    if share >= FAILURE_SHARE_WARNED {
        warnings.push(format!(
            "{}: failures of network parts cost {:.1} % of busy GPU-hours a year: the model assumes one job spans all {} GPUs, so every interruption stops all of them; a cluster running several smaller jobs loses less (docs/cost.md, Failures)",
            fabric.as_str(),
            share * 100.0,
            r.gpus,
        ));
    }
}

/// GPU-hours lost per year to network failures on a sized fabric.
pub fn failure_gpu_hours(r: &inputs::Resolved, s: &SizedFabric) -> f64 {
    let busy =
        rust_decimal::prelude::ToPrimitive::to_f64(&r.economics.busy_fraction).unwrap_or(1.0);
    cost::failure::failure_gpu_hours_per_year(&s.parts, &r.reliability, r.gpus, busy)
}

/// The cost model's input for a sized fabric: its BOM at list price, the idle fraction and
/// the failure hours (`traffic` names the exposed communication for the reasons).
pub fn cost_input<'s>(
    r: &inputs::Resolved,
    s: &'s SizedFabric,
    gpu_idle_fraction: f64,
    traffic: Vec<cost::TrafficShare>,
) -> FabricCostInput<'s> {
    FabricCostInput {
        fabric: s.fabric,
        gpus: r.gpus,
        endpoints: s.endpoints,
        switches: s.switches,
        lines: std::borrow::Cow::Borrowed(&s.lines),
        gpu_idle_fraction,
        failure_gpu_hours_per_year: failure_gpu_hours(r, s),
        traffic,
    }
}

/// Performance and cost of a sized fabric, with its plan entry.
/// The training run `workload.train_tokens` asks for, on this fabric's step time.
fn training(
    fabric: Fabric,
    r: &inputs::Resolved,
    performance: &perf::PerfResult,
    cost: &cost::FabricCost,
    warnings: &mut Vec<String>,
) -> Result<Option<cost::Training>, PlanError> {
    let Some(train_tokens) = r.train_tokens else {
        return Ok(None);
    };
    let Some(tokens_per_step) = performance.tokens_per_step else {
        push_unique(
            warnings,
            "workload.train_tokens is not timed with workload.message_bytes (no training job): set the job instead".to_string(),
        );
        return Ok(None);
    };
    let run = cost::training(&cost::TrainingInput {
        train_tokens,
        tokens_per_step,
        step_time_ms: performance.step_time_ms,
        gpus: r.gpus,
        gpu_idle_fraction: cost.gpu_idle.idle_fraction,
        failure_gpu_hours_per_year: cost.gpu_idle.failure_gpu_hours_per_year,
        busy_fraction: r.economics.busy_fraction,
        network_tco_usd: cost.tco.total_usd,
        years: r.economics.years,
        gpu_hour_usd: r.economics.gpu_hour_usd,
    })
    .map_err(|e| {
        PlanError::field(
            "/workload/train_tokens",
            crate::error_code::ErrorCode::Range,
            e.to_string(),
        )
    })?;
    let horizon_days = f64::from(r.economics.years) * 365.0;
    if run.days_to_train > horizon_days {
        push_unique(
            warnings,
            format!(
                "{}: workload.train_tokens: the run takes {:.0} days, longer than the {}-year horizon ({horizon_days:.0} days)",
                fabric.display_name(),
                run.days_to_train,
                r.economics.years
            ),
        );
    }
    Ok(Some(run))
}

pub(super) fn plan_sized(
    r: &inputs::Resolved,
    s: &SizedFabric,
    warnings: &mut Vec<String>,
    detail: Detail,
) -> Result<(FabricPlan, cost::FabricCost), PlanError> {
    let fabric = s.fabric;
    // Words and lines for a reader; a figures plan (a sweep point) builds neither.
    let full = detail == Detail::Full;
    // 3. Performance.
    let perf_input = perf_input(r, s);
    let mut performance = perf::evaluate(&perf_input).map_err(perf_error)?;
    pcie_bound_nic_warning(&perf_input.nic, warnings);
    forced_algorithm_warning(&perf_input.workload.nccl, &performance, fabric, warnings);
    network_bound_warning(fabric, &performance, &perf_input.workload, warnings);
    cross_rack_ring_warning(&perf_input, &performance, fabric, warnings);
    // Both RoCE tunings side by side are a reader's comparison, not a figure of the plan asked.
    if fabric == Fabric::Roce && full {
        performance.roce_tuning_side_by_side = roce_tunings(&perf_input, &performance)?;
    }

    // 4. Cost. The traffic is named only in the comparison's reasons, which a figures plan
    // does not write.
    let traffic = if full {
        performance
            .collectives
            .iter()
            .map(|c| cost::TrafficShare {
                label: cost::TrafficLabel {
                    parallelism: c.parallelism,
                    kind: c.kind,
                    group_size: c.group_size,
                    placement: c.placement,
                },
                exposed_ms: c.exposed_ms,
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut cost = cost::fabric_cost_with(
        &cost_input(r, s, performance.gpu_idle_fraction, traffic),
        &r.adjustments,
        &r.economics,
        full,
    )?;
    for w in &cost.warnings {
        push_unique(warnings, w.clone());
    }
    failure_share_warning(r, s.fabric, &cost.gpu_idle, warnings);
    if full {
        spare_uplinks_warning(s, warnings);
    }
    // The priced lines move into the plan (the comparison does not read them).
    let priced = std::mem::take(&mut cost.bom);
    let bom = full.then(|| {
        s.notes
            .iter()
            .zip(priced)
            .map(|(it, p)| {
                // An overridden price is the buyer's own: no longer a placeholder, and the
                // catalog's source speaks for the other figures only.
                let overridden = p.price.price_overridden;
                BomLineOut {
                    placeholder_price: it.placeholder_price && !overridden,
                    priced: p,
                    unit: it.unit,
                    derivation: it.derivation,
                    source: if overridden {
                        Text::from(format!(
                            "price: the request's prices.overrides; other figures: {}",
                            it.source
                        ))
                    } else {
                        it.source.clone()
                    },
                }
            })
            .collect()
    });
    let training = training(fabric, r, &performance, &cost, warnings)?;
    let fp = FabricPlan {
        fabric,
        feasible: true,
        infeasible_reason: None,
        suggestions: Vec::new(),
        nic_sku: Some(s.nic_sku.clone()),
        topology: Some(s.topology.clone()),
        design_alternatives: s.design_alternatives.clone(),
        bom,
        capex: Some(cost.capex.clone()),
        opex_per_year: Some(cost.opex_per_year.clone()),
        tco: Some(cost.tco.clone()),
        // The schedule is words and rows a figures plan (a sweep row) does not read.
        depreciation: (detail == Detail::Full)
            .then(|| cost::straight_line(cost.capex.total_usd, r.economics.depreciation_years))
            .transpose()?,
        performance: Some(performance),
        gpu_idle: Some(cost.gpu_idle.clone()),
        training,
        total_cost_usd: Some(cost.total_cost_usd),
        cost_per_useful_gpu_hour_usd: Some(cost.cost_per_useful_gpu_hour_usd),
    };
    Ok((fp, cost))
}
