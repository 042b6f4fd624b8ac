//! The stages run in order for one request: resolve, size, time, price, compare, then the
//! uncertainty analysis and the advice that takes other plans to give.

use super::compare::{self, Priced};
use super::error::PlanError;
use super::options::{Detail, Effort};
use super::output::Plan;
use super::request::PlanRequest;
use super::size::{self, SizingMemo};
use super::{advice, inputs, price, uncertainty};
use crate::catalog::CatalogSet;
use crate::words::push_unique;

/// The figures plan of a request made to check another plan's warnings: it checks none of its
/// own (unused price adjustments, a near non-blocking fabric) and remembers no sizing.
pub(super) fn figures_unchecked(
    req: &PlanRequest,
    catalogs: &CatalogSet,
    effort: Effort,
) -> Result<Plan, PlanError> {
    build_checked(req, catalogs, effort, None, Detail::Figures, false)
}

/// Makes a plan. A fabric that cannot be built for the request is returned as infeasible; only
/// when no requested fabric is feasible is the request an error (the first fabric's reason).
pub fn build_plan(req: &PlanRequest, catalogs: &CatalogSet) -> Result<Plan, PlanError> {
    build(req, catalogs, Effort::default())
}

/// The plan, its uncertainty analysis computed within `effort`.
pub fn build(req: &PlanRequest, catalogs: &CatalogSet, effort: Effort) -> Result<Plan, PlanError> {
    build_with(req, catalogs, effort, None, Detail::Full)
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
    let figures = |variant: &PlanRequest| figures_unchecked(variant, catalogs, effort);
    if let Some(prepared) = &prepared
        && let Some(u) = &prepared.resolved.normalized.uncertainty
    {
        let spec = uncertainty::spec(u, prepared)?;
        plan.uncertainty = Some(uncertainty::analyse(&spec, prepared, catalogs, effort)?);
        for w in uncertainty::outside_ranges(&spec, prepared, &figures) {
            push_unique(&mut plan.warnings, w);
        }
    }
    if let Some(unused) = unused.filter(|u| !u.is_empty()) {
        for w in advice::confirm_unused(unused, req, &plan, &figures) {
            push_unique(&mut plan.warnings, w);
        }
    }
    if check_unused && detail == Detail::Full && oversubscription == 1.0 {
        for w in advice::near_non_blocking(req, &plan, &figures) {
            push_unique(&mut plan.warnings, w);
        }
    }
    Ok(plan)
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
