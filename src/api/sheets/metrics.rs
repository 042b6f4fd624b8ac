//! The metrics `GET /v1/value` accepts: the numeric leaves of a fabric's result, of the
//! comparison and of the uncertainty analysis, by dotted path — read from a plan itself (the
//! embedded catalog, three fabrics, an analysis), so the OpenAPI enum is the plan's types and
//! not a list kept beside them. Array elements are reachable by index as well
//! (`tco.by_year.0.cost_usd`) but are not enumerated.

use std::sync::OnceLock;

use serde_json::Value;

use crate::catalog::CatalogSet;
use crate::plan::{PlanRequest, build_plan};

/// The request whose plan documents the metrics.
fn sample_request() -> Option<PlanRequest> {
    serde_json::from_value(serde_json::json!({
        "gpus": 1024,
        "fabrics": ["infiniband", "roce", "roce_adaptive"],
        "uncertainty": {"samples": 1}
    }))
    .ok()
}

/// The metrics of a plan (sorted, each once).
fn metrics_of(plan: &crate::plan::Plan) -> Vec<String> {
    let tree = serde_json::to_value(plan).unwrap_or(Value::Null);
    let comparison = tree.get("comparison").filter(|c| !c.is_null());
    let mut out = valid_metrics(&tree["fabrics"][0], comparison, &tree["uncertainty"]);
    out.sort();
    out.dedup();
    out
}

/// Dotted paths `/v1/value` takes as `metric` (besides array indexes), for the OpenAPI enum.
pub fn value_metrics() -> &'static [String] {
    static METRICS: OnceLock<Vec<String>> = OnceLock::new();
    METRICS.get_or_init(|| {
        let plan = CatalogSet::embedded()
            .ok()
            .zip(sample_request())
            .and_then(|(cats, req)| build_plan(&req, &cats).ok());
        plan.as_ref().map(metrics_of).unwrap_or_default()
    })
}

fn is_numeric(v: &Value) -> bool {
    match v {
        Value::Number(_) | Value::Null => true,
        Value::String(s) => s.parse::<rust_decimal::Decimal>().is_ok(),
        _ => false,
    }
}

/// Dotted paths of the numeric leaves under `v` (objects only; arrays are reachable by index
/// but not listed).
fn numeric_paths(v: &Value, prefix: &str, out: &mut Vec<String>) {
    if let Value::Object(m) = v {
        for (k, child) in m {
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match child {
                Value::Object(_) => numeric_paths(child, &path, out),
                Value::Array(_) => {}
                leaf if is_numeric(leaf) => out.push(path),
                _ => {}
            }
        }
    }
}

/// The metrics `/v1/value` accepts for this plan: a fabric's numeric leaves, the
/// comparison's, and the uncertainty analysis' (per fabric and plan-wide; a plan without an
/// analysis gets the default one for an `uncertainty.*` metric).
pub fn valid_metrics(
    fabric: &Value,
    comparison: Option<&Value>,
    uncertainty: &Value,
) -> Vec<String> {
    let mut out = Vec::new();
    numeric_paths(fabric, "", &mut out);
    if let Some(c) = comparison {
        numeric_paths(c, "comparison", &mut out);
        if let Some(first) = c.get("deltas").and_then(|d| d.get(0)) {
            numeric_paths(first, "comparison.deltas", &mut out);
        }
    }
    if uncertainty.is_null() {
        out.extend(
            value_metrics()
                .iter()
                .filter(|m| m.starts_with("uncertainty."))
                .cloned(),
        );
    } else {
        numeric_paths(uncertainty, "uncertainty", &mut out);
        if let Some(first) = uncertainty.get("fabrics").and_then(|d| d.get(0)) {
            numeric_paths(first, "uncertainty", &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One plan documents every plan's metrics: two- and three-tier plans, small and large,
    /// have the same numeric leaves (absent figures are null, not missing).
    #[test]
    fn one_plan_documents_every_plans_metrics() {
        let cats = CatalogSet::embedded().expect("embedded catalog");
        let documented = value_metrics();
        for name in [
            "tco.total_usd",
            "comparison.deltas.total_usd",
            "uncertainty.probability_cheapest",
            "uncertainty.total_usd.p95",
        ] {
            assert!(documented.iter().any(|m| m == name), "{name}");
        }
        for gpus in [64, 65_536] {
            let req: PlanRequest = serde_json::from_value(serde_json::json!({
                "gpus": gpus, "fabrics": ["infiniband", "roce", "roce_adaptive"],
                "uncertainty": {"samples": 2}
            }))
            .expect("request");
            let plan = build_plan(&req, &cats).expect("plan");
            assert_eq!(metrics_of(&plan), documented, "{gpus} GPUs");
        }
    }
}
