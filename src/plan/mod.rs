//! The plan pipeline, in stages over plain data (no HTTP):
//! 1. resolve ([`inputs`]): the request against its catalog, every default filled in;
//! 2. size ([`size`]): each fabric's design chosen and its BOM counted;
//! 3. time ([`time`]): the performance model on each sized fabric;
//! 4. price ([`price`]): capex, opex, TCO and idle cost of each;
//! 5. compare ([`compare`]): the fabrics side by side, the recommendation, and the advice that
//!    takes other plans to give ([`advice`]).
//!
//! [`build_with`] runs them in that order; an uncertainty analysis ([`uncertainty`]) re-runs
//! time and price on the sized fabrics, and a sweep ([`sweep`]) the whole pipeline per point.

mod advice;
pub mod bom;
pub mod bounded;
#[cfg(test)]
mod build_tests;
pub mod cache;
mod compare;
#[cfg(test)]
mod design_tests;
mod error;
mod id;
pub mod inputs;
mod output;
mod price;
pub mod registry;
pub mod request;
mod size;
pub mod sweep;
mod time;
pub mod uncertainty;

use crate::catalog::CatalogSet;
use crate::cost;
use crate::fabric::Fabric;

pub(crate) use advice::{PriceSet, design_moves_at, priced_by};
use error::sizing_error;
pub use error::{PlanError, perf_error};
pub use id::{hex_prefix, plan_id};
pub use output::{BomLineOut, Built, CatalogRef, DesignAlternative, FabricPlan, Plan};
pub use price::{cost_input, failure_gpu_hours};
pub use request::PlanRequest;
pub(crate) use size::DecimalText;
pub use size::{SizedFabric, SizingMemo};
pub use time::perf_input;

/// The figures plan of a request made to check another plan's warnings: it checks none of its
/// own ([`confirm_unused`]) and remembers no sizing.
fn figures_unchecked(
    req: &PlanRequest,
    catalogs: &CatalogSet,
    effort: Effort,
) -> Result<Plan, PlanError> {
    build_checked(req, catalogs, effort, None, Detail::Figures, false)
}

fn push_unique(warnings: &mut Vec<String>, w: String) {
    if !warnings.contains(&w) {
        warnings.push(w);
    }
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

/// Makes a plan. A fabric that cannot be built for the request is returned as infeasible; only
/// when no requested fabric is feasible is the request an error (the first fabric's reason).
pub fn build_plan(req: &PlanRequest, catalogs: &CatalogSet) -> Result<Plan, PlanError> {
    build(req, catalogs, Effort::default())
}

/// How an uncertainty analysis may compute: until when, and on how many threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effort {
    /// Past it the analysis stops with `analysis_too_slow`; `None`, no limit.
    pub deadline: Option<std::time::Instant>,
    /// Threads drawing its samples (0 or 1: the calling thread alone). The answer does not
    /// depend on it.
    pub threads: usize,
}

/// The plan, its uncertainty analysis computed within `effort`.
pub fn build(req: &PlanRequest, catalogs: &CatalogSet, effort: Effort) -> Result<Plan, PlanError> {
    build_with(req, catalogs, effort, None, Detail::Full)
}

/// How much of a plan to write out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything: the BOM lines with their text, the comparison's recommendation and reasons.
    Full,
    /// The figures a sweep row reads (costs, performance, the cheapest fabric, warnings, the
    /// plan id): no BOM lines, no suggestions for infeasible fabrics, no recommendation or
    /// reasons, no RoCE tunings side by side. Every figure is the one `Full` gives for the
    /// same request.
    Figures,
}

/// [`build`], reusing the sizing in `memo` when the request differs from the last one only in
/// inputs sizing does not read (see [`SizingMemo`]; a sizing remembered at another `detail` is
/// not reused).
pub fn build_with(
    req: &PlanRequest,
    catalogs: &CatalogSet,
    effort: Effort,
    memo: Option<&mut SizingMemo>,
    detail: Detail,
) -> Result<Plan, PlanError> {
    build_checked(req, catalogs, effort, memo, detail, true)
}

/// [`build_with`]; `check_unused`: confirm price adjustments that no chosen design prices with
/// by a plan without them (that plan does not check again).
fn build_checked(
    req: &PlanRequest,
    catalogs: &CatalogSet,
    effort: Effort,
    memo: Option<&mut SizingMemo>,
    detail: Detail,
    check_unused: bool,
) -> Result<Plan, PlanError> {
    let r = inputs::resolve(req, catalogs)?;
    let fabrics = size_time_price(&r, memo, detail)?;
    // Candidates only where they will be confirmed (not in the plans that confirm them).
    let unused =
        check_unused.then(|| advice::UnusedAdjustments::of(&r.adjustments, &fabrics.sized));
    let oversubscription = r.oversubscription;
    let (mut plan, prepared) = compare::compared(req, r, fabrics, detail)?;
    if let Some(prepared) = &prepared
        && let Some(u) = &prepared.resolved.normalized.uncertainty
    {
        let spec = uncertainty::spec(u, prepared)?;
        plan.uncertainty = Some(uncertainty::analyse(&spec, prepared, catalogs, effort)?);
        for w in uncertainty::outside_ranges(&spec, prepared, catalogs, effort) {
            push_unique(&mut plan.warnings, w);
        }
    }
    if let Some(unused) = unused.filter(|u| !u.is_empty()) {
        for w in advice::confirm_unused(unused, req, &plan, catalogs, effort) {
            push_unique(&mut plan.warnings, w);
        }
    }
    if check_unused && detail == Detail::Full && oversubscription == 1.0 {
        for w in advice::near_non_blocking(req, &plan, catalogs, effort) {
            push_unique(&mut plan.warnings, w);
        }
    }
    Ok(plan)
}

/// Stages 2 to 4 for every requested fabric, in request order: what [`compare`] starts from.
struct Priced {
    /// The resolved request's warnings, then each fabric's as sizing, timing and pricing raised
    /// them, then the notes of the fabrics built.
    warnings: Vec<String>,
    /// Every requested fabric's entry, feasible or not.
    fabrics: Vec<FabricPlan>,
    /// The feasible fabrics' costs.
    costs: Vec<(Fabric, cost::FabricCost)>,
    /// The feasible fabrics as sized.
    sized: Vec<std::sync::Arc<SizedFabric>>,
    /// Why the first infeasible fabric cannot be built.
    first_error: Option<PlanError>,
}

/// Sizes every requested fabric (stage 2), then times and prices each that can be built
/// (stages 3 and 4).
fn size_time_price(
    r: &inputs::Resolved,
    memo: Option<&mut SizingMemo>,
    detail: Detail,
) -> Result<Priced, PlanError> {
    let n = r.fabrics.len();
    let mut out = Priced {
        warnings: r.warnings.clone(),
        fabrics: Vec::with_capacity(n),
        costs: Vec::with_capacity(n),
        sized: Vec::with_capacity(n),
        first_error: None,
    };
    for (sizing, raised) in size::size_all(r, memo, detail)? {
        for w in raised {
            push_unique(&mut out.warnings, w);
        }
        match sizing {
            size::Sizing::Sized(sized) => {
                let fabric = sized.fabric;
                let (fp, cost) = price::plan_sized(r, &sized, &mut out.warnings, detail)?;
                out.fabrics.push(fp);
                out.costs.push((fabric, cost));
                out.sized.push(sized);
            }
            size::Sizing::Infeasible(fp, e) => {
                push_unique(
                    &mut out.warnings,
                    format!(
                        "{}: infeasible for this request — {}",
                        fp.fabric.as_str(),
                        fp.reason_words()
                    ),
                );
                out.fabrics.push(*fp);
                out.first_error.get_or_insert(e);
            }
        }
    }
    for (scope, w) in &r.fabric_notes {
        if out.sized.iter().any(|s| scope.covers(s.fabric)) {
            push_unique(&mut out.warnings, w.clone());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod workload_tests;
