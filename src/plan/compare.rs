//! Stage 5, compare: the priced fabrics side by side, the recommendation, and the plan put
//! together (its id, the catalog that priced it, the normalized request it echoes).

use super::error::PlanError;
use super::id::plan_id;
use super::inputs;
use super::options::Detail;
use super::output::{CatalogRef, FabricPlan, Plan};
use super::request::PlanRequest;
use super::size::{Prepared, SizedFabric};
use crate::cost::{self, Comparison};
use crate::fabric::Fabric;

/// Stages 2 to 4 for every requested fabric, in request order: what [`compared`] starts from.
pub(super) struct Priced {
    /// The resolved request's warnings, then each fabric's as sizing, timing and pricing raised
    /// them, then the notes of the fabrics built.
    pub(super) warnings: Vec<String>,
    /// Every requested fabric's entry, feasible or not.
    pub(super) fabrics: Vec<FabricPlan>,
    /// The feasible fabrics' costs.
    pub(super) costs: Vec<(Fabric, cost::FabricCost)>,
    /// The feasible fabrics as sized.
    pub(super) sized: Vec<std::sync::Arc<SizedFabric>>,
    /// Why the first infeasible fabric cannot be built.
    pub(super) first_error: Option<PlanError>,
}

/// The plan of the priced fabrics, with what an uncertainty analysis starts from when the
/// request asks for one; an error when no fabric can be built.
pub(super) fn compared(
    req: &PlanRequest,
    r: inputs::Resolved,
    priced: Priced,
    detail: Detail,
) -> Result<(Plan, Option<Prepared>), PlanError> {
    let Priced {
        warnings,
        fabrics,
        costs,
        sized,
        first_error,
    } = priced;
    if costs.is_empty()
        && let Some(e) = first_error
    {
        return Err(none_built(&fabrics, e));
    }
    let mut comparison = comparison(&r, &costs, detail)?;
    if let Some(c) = comparison.as_mut().filter(|_| detail == Detail::Full) {
        c.rules_of_thumb = rules_of_thumb(&r, c.cheapest_fabric, &fabrics);
    }
    let catalog = &r.catalog;
    let catalog_ref = CatalogRef {
        id: catalog.id().to_string(),
        version: catalog.data.version.clone(),
        sha256: catalog.sha256.clone(),
    };
    let plan_id = plan_id(&r.normalized, &catalog.sha256);
    // What the plan was made from, kept only for an analysis to re-price: a plan without one
    // (every sweep point among them) moves its normalized request into `inputs`, uncopied.
    let (inputs, prepared) = if r.normalized.uncertainty.is_some() {
        let inputs = r.normalized.clone();
        let prepared = Prepared {
            request: req.uncertainty.as_ref().map(|_| req.clone()),
            resolved: r,
            sized,
        };
        (inputs, Some(prepared))
    } else {
        (r.normalized, None)
    };
    let plan = Plan {
        plan_id,
        catalog: catalog_ref,
        inputs,
        warnings,
        fabrics,
        comparison,
        uncertainty: None,
    };
    Ok((plan, prepared))
}

/// The rules of thumb checked against the built fabrics' figures.
fn rules_of_thumb(
    r: &inputs::Resolved,
    cheapest: Fabric,
    fabrics: &[FabricPlan],
) -> Vec<cost::RuleOfThumb> {
    let built = fabrics.iter().filter_map(|f| {
        let (capex, tco, idle, perf) = (
            f.capex.as_ref()?,
            f.tco.as_ref()?,
            f.gpu_idle.as_ref()?,
            f.performance.as_ref()?,
        );
        Some(cost::ThumbFabric {
            fabric: f.fabric,
            capex,
            tco_usd: tco.total_usd,
            gpu_idle_usd: idle.cost_total_usd,
            step_time_ms: perf.step_time_ms,
            network_exposed_ms: perf.network_exposed_ms,
        })
    });
    cost::rules_of_thumb(&cost::ThumbPlan {
        gpus: r.gpus,
        years: r.economics.years,
        roce_tuning: match r.roce_tuning {
            crate::perf::RoceTuning::Default => "default",
            crate::perf::RoceTuning::Tuned => "tuned",
        },
        cheapest,
        fabrics: built.collect(),
    })
}

/// No fabric can be built: the error points where the first failed and, with several fabrics,
/// says why each did (each reason names its fabric, "roce: …").
fn none_built(fabrics: &[super::output::FabricPlan], mut e: PlanError) -> PlanError {
    if fabrics.len() > 1 {
        let why: Vec<String> = fabrics
            .iter()
            .map(|f| match &f.infeasible_reason {
                Some(r) => r.clone(),
                None => format!("{}: not built", f.fabric.as_str()),
            })
            .collect();
        e.detail = format!("no fabric can be built — {}", why.join("; "));
    }
    e
}

/// The feasible fabrics compared; with reasons and a recommendation in a full plan, which says
/// first that a job inside one NVLink domain needs no fabric.
fn comparison(
    r: &inputs::Resolved,
    costs: &[(Fabric, cost::FabricCost)],
    detail: Detail,
) -> Result<Option<Comparison>, PlanError> {
    let pairs: Vec<(Fabric, &cost::FabricCost)> = costs.iter().map(|(f, c)| (*f, c)).collect();
    let words = detail == Detail::Full;
    let mut comparison = cost::compare_with(&pairs, &r.economics, r.gpus, words)?;
    if let Some(c) = comparison
        .as_mut()
        .filter(|_| words && r.gpus <= r.nvlink_domain_gpus)
    {
        let then = std::mem::replace(&mut c.recommendation, cost::Recommendation::Unwritten);
        c.recommendation = cost::Recommendation::NoneNeeded {
            gpus: r.gpus,
            server: r.gpus <= r.gpus_per_node,
            then: Box::new(then),
        };
    }
    Ok(comparison)
}
