//! One evaluation of the sized fabrics at a set of input values: the request (or its resolved
//! form) with the values set, each fabric timed and priced, its totals.

use rust_decimal::Decimal;

use super::{Kind, Target, text};
use crate::catalog::CatalogSet;
use crate::cost::{self, FabricCostInput};
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
use crate::plan::error::PlanError;
use crate::plan::error::perf_error;
use crate::plan::inputs;
use crate::plan::price::{cost_input, failure_gpu_hours};
use crate::plan::request::PlanRequest;
use crate::plan::size::{Prepared, SizedFabric};
use crate::plan::time::perf_input;

/// What one evaluation gives per fabric, USD.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Totals {
    pub(super) capex: Decimal,
    pub(super) tco: Decimal,
    pub(super) idle: Decimal,
    pub(super) total: Decimal,
}

/// One fabric's state across evaluations: its cost input (list prices rewritten in place)
/// and the BOM lines each list-price target prices.
struct FabricState<'a> {
    sized: &'a SizedFabric,
    input: FabricCostInput<'a>,
    slots: Vec<(usize, Vec<usize>)>,
}

/// Evaluates the plan's fabrics at given input values, without sizing again.
pub(super) struct Engine<'a> {
    prepared: &'a Prepared,
    catalogs: &'a CatalogSet,
    pub(super) targets: &'a [Target],
    fabrics: Vec<FabricState<'a>>,
    /// The client's request as JSON, with a slot at each request-level target's path
    /// (rewritten per evaluation); `None` when every target is a list price.
    request: Option<serde_json::Value>,
}

fn slot<'v>(v: &'v mut serde_json::Value, path: &[String]) -> &'v mut serde_json::Value {
    let mut cur = v;
    for seg in path {
        if !cur.is_object() {
            *cur = serde_json::Value::Object(serde_json::Map::new());
        }
        let serde_json::Value::Object(m) = cur else {
            unreachable!("made an object above")
        };
        cur = m.entry(seg.clone()).or_insert(serde_json::Value::Null);
    }
    cur
}

impl<'a> Engine<'a> {
    pub(super) fn new(
        prepared: &'a Prepared,
        catalogs: &'a CatalogSet,
        targets: &'a [Target],
    ) -> Result<Engine<'a>, PlanError> {
        let r = &prepared.resolved;
        let mut fabrics = Vec::with_capacity(prepared.sized.len());
        for s in &prepared.sized {
            let perf = crate::perf::evaluate(&perf_input(r, s)).map_err(perf_error)?;
            let input = cost_input(r, s, perf.gpu_idle_fraction, Vec::new());
            let slots = targets
                .iter()
                .enumerate()
                .filter_map(|(t, target)| match &target.kind {
                    Kind::ListPrice(sku) => {
                        let lines: Vec<usize> = input
                            .lines
                            .iter()
                            .enumerate()
                            .filter(|(_, l)| &l.sku == sku)
                            .map(|(i, _)| i)
                            .collect();
                        (!lines.is_empty()).then_some((t, lines))
                    }
                    Kind::Input { .. } | Kind::ModelTerm { .. } => None,
                })
                .collect();
            fabrics.push(FabricState {
                sized: s,
                input,
                slots,
            });
        }
        let request = if targets.iter().any(|t| matches!(t.kind, Kind::Input { .. })) {
            let base = prepared.request.as_ref().unwrap_or(&r.normalized);
            let mut v = serde_json::to_value(base).map_err(|e| {
                PlanError::field("/uncertainty", ErrorCode::InternalError, e.to_string())
            })?;
            if let Some(m) = v.as_object_mut() {
                m.remove("uncertainty");
            }
            Some(v)
        } else {
            None
        };
        Ok(Engine {
            prepared,
            catalogs,
            targets,
            fabrics,
            request,
        })
    }

    /// Every fabric's totals with the targets at `values` (one per target, in order).
    pub(super) fn eval(&mut self, values: &[f64]) -> Result<Vec<Totals>, PlanError> {
        let resolved;
        let r = match &mut self.request {
            None => &self.prepared.resolved,
            Some(json) => {
                for (t, v) in self.targets.iter().zip(values) {
                    if let Kind::Input { path, decimal } = &t.kind {
                        *slot(json, path) = if *decimal {
                            let d = crate::plan::bounded::decimal_from_f64(*v)
                                .unwrap_or_default()
                                .round_dp(6)
                                .normalize();
                            serde_json::Value::String(d.to_string())
                        } else {
                            serde_json::Value::from(*v)
                        };
                    }
                }
                let targets = self.targets;
                let at = || at_text(targets, values);
                let req: PlanRequest = serde::Deserialize::deserialize(&*json).map_err(|e| {
                    PlanError::field(
                        "/uncertainty/inputs",
                        ErrorCode::InvalidRange,
                        format!("{}: {e}", at()),
                    )
                })?;
                resolved = inputs::resolve(&req, self.catalogs).map_err(|e| PlanError {
                    detail: format!("{}: {}", at(), e.detail),
                    ..e
                })?;
                &resolved
            }
        };
        let mut out = Vec::with_capacity(self.fabrics.len());
        let targets = self.targets;
        let (terms, sampled) = model_terms(r, targets, values);
        let reevaluate = self.request.is_some() || sampled;
        for f in &mut self.fabrics {
            for (t, lines) in &f.slots {
                let price = crate::plan::bounded::decimal_from_f64(values[*t])
                    .unwrap_or_default()
                    .round_dp(2);
                for &i in lines {
                    // The first price written copies the lines (copy on write).
                    if let Some(l) = f.input.lines.to_mut().get_mut(i) {
                        l.list_unit_price_usd = price;
                    }
                }
            }
            if reevaluate {
                let mut input = perf_input(r, f.sized);
                input.workload.model_terms = terms;
                let perf = crate::perf::evaluate(&input).map_err(|e| {
                    let e = perf_error(e);
                    PlanError {
                        detail: format!("{}: {}", at_text(targets, values), e.detail),
                        ..e
                    }
                })?;
                f.input.gpu_idle_fraction = perf.gpu_idle_fraction;
                f.input.failure_gpu_hours_per_year = failure_gpu_hours(r, f.sized);
            }
            let c = cost::fabric_cost_with(&f.input, &r.adjustments, &r.economics, false)?;
            out.push(Totals {
                capex: c.capex.total_usd,
                tco: c.tco.total_usd,
                idle: c.gpu_idle.cost_total_usd,
                total: c.total_cost_usd,
            });
        }
        Ok(out)
    }

    pub(super) fn fabric_ids(&self) -> Vec<Fabric> {
        self.fabrics.iter().map(|f| f.sized.fabric).collect()
    }
}

/// The model terms of an evaluation: the resolved job's, with each sampled term's value, and
/// whether any is sampled.
fn model_terms(
    r: &inputs::Resolved,
    targets: &[Target],
    values: &[f64],
) -> (crate::perf::ModelTerms, bool) {
    let mut terms = r.workload.model_terms;
    let mut sampled = false;
    for (t, v) in targets.iter().zip(values) {
        if let Kind::ModelTerm { path } = &t.kind {
            sampled = true;
            match path.last().map(String::as_str) {
                Some("nic_efficiency") => terms.nic_efficiency = *v,
                Some("ecmp_efficiency") => terms.ecmp_efficiency = *v,
                Some("a2a_efficiency") => terms.a2a_efficiency = *v,
                _ => {}
            }
        }
    }
    (terms, sampled)
}

/// The request-level values of an evaluation, for errors (`with economics.pue = 1.4`).
fn at_text(targets: &[Target], values: &[f64]) -> String {
    let parts: Vec<String> = targets
        .iter()
        .zip(values)
        .filter(|(t, _)| matches!(t.kind, Kind::Input { .. } | Kind::ModelTerm { .. }))
        .map(|(t, v)| format!("{} = {}", t.name, text::number(*v)))
        .collect();
    format!("with {}", parts.join(", "))
}
