//! The metrics `GET /v1/value` accepts: the numeric leaves of a fabric's result, of the
//! comparison and of the uncertainty analysis, by dotted path — read from a plan itself (the
//! embedded catalog, three fabrics, an analysis), so the OpenAPI enum is the plan's types and
//! not a list kept beside them. Array elements are reachable by index as well
//! (`tco.by_year.0.cost_usd`) but are not enumerated.

use std::sync::OnceLock;

use serde_json::Value;

use crate::catalog::CatalogSet;
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
use crate::plan::{Plan, PlanError, PlanRequest, build_plan};

/// The request whose plan documents the metrics: 1,056 GPUs, a partly filled scalable unit, so
/// that `topology.partial_leaf.*` is listed too, and a training run (`training.*`).
fn sample_request() -> Option<PlanRequest> {
    serde_json::from_value(serde_json::json!({
        "gpus": 1056,
        "fabrics": ["infiniband", "roce", "roce_adaptive"],
        "workload": {"train_tokens": 1.0e12},
        "uncertainty": {"samples": 1}
    }))
    .ok()
}

/// The metrics that are names, not numbers: which fabric is cheapest (for a spreadsheet cell
/// that shows the recommendation).
pub const TEXT_METRICS: [&str; 3] = [
    "comparison.cheapest_fabric",
    "comparison.break_even.cheapest_fabric",
    "comparison.break_even.runner_up_fabric",
];

/// The metrics of a plan (sorted, each once).
fn metrics_of(plan: &Plan) -> Vec<String> {
    let tree = tree(plan);
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
            let path = crate::json::dotted(prefix, k);
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
        out.extend(
            TEXT_METRICS
                .iter()
                .filter(|m| dig_comparison(c, m.trim_start_matches("comparison."), None).is_some())
                .map(|m| m.to_string()),
        );
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

/// Which fabric's result a metric is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FabricChoice {
    /// None named: only plan-wide metrics (`comparison.break_even.*`, `uncertainty.samples`).
    Unnamed,
    /// The cheapest fabric ([`crate::plan::Plan::cheapest_fabric`]; the first fabric when none
    /// can be built, whose error then says why).
    Cheapest,
    Named(Fabric),
}

/// Why a metric cannot be read, and (for an unknown or non-numeric metric) the valid ones.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricError {
    pub error: PlanError,
    pub valid_metrics: Option<Vec<String>>,
}

fn fail(pointer: &str, code: ErrorCode, detail: String) -> MetricError {
    MetricError {
        error: PlanError::field(pointer, code, detail),
        valid_metrics: None,
    }
}

fn fabric_required(metric: &str) -> MetricError {
    fail(
        "/fabric",
        ErrorCode::Required,
        format!("query parameter 'fabric' is required for metric '{metric}'"),
    )
}

/// Walks a comparison path; an array of per-fabric entries (`deltas`) is indexed by fabric
/// unless the segment is an index.
fn dig_comparison<'a>(c: &'a Value, path: &str, fabric: Option<Fabric>) -> Option<&'a Value> {
    path.split('.').try_fold(c, |cur, seg| match cur {
        Value::Array(a) => match seg.parse::<usize>() {
            Ok(i) => a.get(i),
            Err(_) => {
                let f = fabric?;
                a.iter().find(|e| e["fabric"] == f.as_str())?.get(seg)
            }
        },
        other => other.get(seg),
    })
}

/// A number as bare text: `.` decimal point, no thousands separator, no exponent.
fn plain_number(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(super::csv::number(n)),
        Value::String(s) => s
            .parse::<rust_decimal::Decimal>()
            .ok()
            .map(|d| crate::json::decimal_string(&d)),
        _ => None,
    }
}

/// `v` as a JSON tree (the plan's parts always convert; `null` were one not to).
fn tree<T: serde::Serialize + ?Sized>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// The value of `metric` in a plan as bare text, and the fabric it was read from: a dotted path
/// into the fabric's result, the comparison (`comparison.…`) or the uncertainty analysis
/// (`uncertainty.…`, per fabric or plan-wide). A fabric's figure is picked from the fabric as
/// it serialises (`json::pick`), not from its whole JSON tree; the trees are built only to list
/// the valid metrics in an error.
pub fn value(
    plan: &Plan,
    metric: &str,
    choice: FabricChoice,
) -> Result<(String, Option<Fabric>), MetricError> {
    let fabric = chosen_fabric(plan, choice)?;
    let chosen = fabric_plan(plan, fabric)?;
    let comparison = || plan.comparison.as_ref().map(tree);
    let uncertainty = || tree(&plan.uncertainty);
    // A fabric's tree, to list the valid metrics in an error.
    let listing = |code: ErrorCode, detail: String| {
        let sample = chosen
            .or(plan.fabrics.first())
            .map(tree)
            .unwrap_or(Value::Null);
        MetricError {
            error: PlanError::field("/metric", code, detail),
            valid_metrics: Some(valid_metrics(
                &sample,
                comparison().as_ref(),
                &uncertainty(),
            )),
        }
    };
    let found = if let Some(rest) = metric.strip_prefix("uncertainty.") {
        uncertainty_value(plan, rest, fabric, metric)?
    } else if let Some(rest) = metric.strip_prefix("comparison.") {
        comparison_value(plan, rest, (fabric, chosen), metric)?
    } else {
        fabric_value(chosen, metric)?
    };
    // A documented metric a plan has no part for (`topology.partial_leaf.*` without a partly
    // filled unit) is there but empty, as a null figure is.
    let found = found.or_else(|| {
        value_metrics()
            .iter()
            .any(|m| m == metric)
            .then_some(Value::Null)
    });
    let Some(found) = found else {
        return Err(listing(
            ErrorCode::UnknownMetric,
            format!(
                "query parameter 'metric': unknown metric '{metric}'; extra.valid_metrics lists the valid ones"
            ),
        ));
    };
    // A figure the plan has none of (no break-even GPU-hour value: one fabric is cheaper at
    // every value; no partly filled unit) is the empty text, as its plan CSV cell is empty: a
    // spreadsheet cell holds it, and a wrong input still answers a 4xx.
    if found.is_null() {
        return Ok((String::new(), fabric));
    }
    match (plain_number(&found), found.as_str()) {
        (Some(text), _) => Ok((text, fabric)),
        (None, Some(name)) if TEXT_METRICS.contains(&metric) => Ok((name.to_string(), fabric)),
        (None, _) => Err(listing(
            ErrorCode::NotNumeric,
            format!("query parameter 'metric': '{metric}' is not a number"),
        )),
    }
}

/// The fabric a metric is read from: the one named, the cheapest, or none.
fn chosen_fabric(plan: &Plan, choice: FabricChoice) -> Result<Option<Fabric>, MetricError> {
    Ok(match choice {
        FabricChoice::Unnamed => None,
        FabricChoice::Named(f) => Some(f),
        FabricChoice::Cheapest => Some(
            plan.cheapest_fabric()
                .or_else(|| plan.fabrics.first().map(|f| f.fabric))
                .ok_or_else(|| {
                    fail(
                        "/fabric",
                        ErrorCode::NotInPlan,
                        "the plan has no fabric".into(),
                    )
                })?,
        ),
    })
}

/// The plan of `fabric`, which must be one the plan has.
fn fabric_plan(
    plan: &Plan,
    fabric: Option<Fabric>,
) -> Result<Option<&crate::plan::FabricPlan>, MetricError> {
    Ok(match fabric {
        Some(f) => match plan.fabrics.iter().find(|p| p.fabric == f) {
            Some(p) => Some(p),
            None => {
                return Err(fail(
                    "/fabric",
                    ErrorCode::NotInPlan,
                    format!(
                        "query parameter 'fabric': {} is not among the planned fabrics (see 'fabrics')",
                        f.as_str()
                    ),
                ));
            }
        },
        None => None,
    })
}

/// An `uncertainty.…` metric (`rest` after the prefix): per fabric (`probability_cheapest`,
/// `total_usd.p95`, …) or plan-wide (`samples`, `gap_at_modes_usd`).
fn uncertainty_value(
    plan: &Plan,
    rest: &str,
    fabric: Option<Fabric>,
    metric: &str,
) -> Result<Option<Value>, MetricError> {
    let uncertainty = tree(&plan.uncertainty);
    let first = rest.split('.').next().unwrap_or("");
    let entries = uncertainty["fabrics"].as_array();
    let per_fabric = entries
        .and_then(|e| e.first())
        .is_some_and(|e| e.get(first).is_some());
    if per_fabric {
        let f = fabric.ok_or_else(|| fabric_required(metric))?;
        let entry = entries
            .into_iter()
            .flatten()
            .find(|e| e["fabric"] == f.as_str())
            .ok_or_else(|| {
                fail(
                    "/fabric",
                    ErrorCode::NotInPlan,
                    format!(
                        "query parameter 'fabric': {} is not among the analysed (feasible) fabrics",
                        f.as_str()
                    ),
                )
            })?;
        Ok(super::csv::dig(entry, rest).cloned())
    } else {
        Ok(super::csv::dig(&uncertainty, rest).cloned())
    }
}

/// A `comparison.…` metric (`rest` after the prefix), of the fabric chosen where the
/// comparison has one entry per fabric.
fn comparison_value(
    plan: &Plan,
    rest: &str,
    (fabric, chosen): (Option<Fabric>, Option<&crate::plan::FabricPlan>),
    metric: &str,
) -> Result<Option<Value>, MetricError> {
    let Some(c) = plan.comparison.as_ref().map(tree) else {
        return Err(fail(
            "/metric",
            ErrorCode::NoComparison,
            "query parameter 'metric': a comparison needs at least two fabrics".into(),
        ));
    };
    let found = dig_comparison(&c, rest, fabric).cloned();
    // A fabric that cannot be built is in no comparison: say why.
    if let Some(f) = chosen.filter(|f| found.is_none() && !f.feasible) {
        return Err(not_built(f, metric));
    }
    if found.is_none()
        && fabric.is_none()
        && c.get(rest.split('.').next().unwrap_or(""))
            .is_some_and(Value::is_array)
    {
        return Err(fabric_required(metric));
    }
    Ok(found)
}

/// A metric of the chosen fabric's result.
fn fabric_value(
    chosen: Option<&crate::plan::FabricPlan>,
    metric: &str,
) -> Result<Option<Value>, MetricError> {
    let f = chosen.ok_or_else(|| fabric_required(metric))?;
    // An infeasible fabric has no figures: say why, not that the metric is unknown.
    if !f.feasible {
        return Err(not_built(f, metric));
    }
    Ok(crate::json::pick(f, &[metric])
        .ok()
        .and_then(|mut v| v.pop())
        .flatten())
}

/// The error for a metric of a fabric that cannot be built: why, not "unknown metric".
fn not_built(f: &crate::plan::FabricPlan, metric: &str) -> MetricError {
    fail(
        "/fabric",
        ErrorCode::NotInPlan,
        format!(
            "query parameter 'fabric': {} cannot be built for this request, so it has no '{metric}': {}",
            f.fabric.as_str(),
            f.infeasible_reason.as_deref().unwrap_or("infeasible")
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One plan documents every plan's metrics: two- and three-tier plans, small and large,
    /// have the same numeric leaves (absent figures are null, not missing), but for a partly
    /// filled unit's leaf (`topology.partial_leaf.*`), which only such a plan has — and the
    /// documenting plan is one — and `training.*`, which only a plan with a run has (these
    /// have one).
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
                "workload": {"train_tokens": 2.0e12},
                "uncertainty": {"samples": 2}
            }))
            .expect("request");
            let plan = build_plan(&req, &cats).expect("plan");
            let documented_but_the_partial_leaf: Vec<&String> = documented
                .iter()
                .filter(|m| !m.starts_with("topology.partial_leaf."))
                .collect();
            let has: Vec<String> = metrics_of(&plan);
            assert_eq!(
                has.iter().collect::<Vec<_>>(),
                documented_but_the_partial_leaf,
                "{gpus} GPUs"
            );
        }
        assert!(
            documented
                .iter()
                .any(|m| m == "topology.partial_leaf.uplinks")
        );
    }

    /// `/v1/value` and the plan CSV answer from a figures plan when it has the figure: it must
    /// be the full plan's answer, for every metric, fabric choice and CSV cell, on plans small
    /// and large, with an analysis, with an infeasible fabric, with a MoE job and 2026 GPUs.
    /// What the figures plan leaves out must be an error there (the API then asks the full
    /// plan), never another number.
    #[test]
    fn a_figures_plan_answers_as_the_full_plan_or_not_at_all() {
        use crate::plan::{Detail, Effort, build_with};
        let cats = CatalogSet::embedded().expect("embedded catalog");
        let mut names: Vec<String> = value_metrics().to_vec();
        names.extend(crate::table::PLAN_COLUMNS.iter().map(|c| c.to_string()));
        names.extend(
            [
                "tco.by_year.0.cost_usd",
                "tco.by_year.01.cost_usd",
                "bom.0.quantity",
                "bom.3.extended_price_usd",
                "design_alternatives.0.capex_usd",
                "performance.roce_tuning_side_by_side.ecmp.gpu_idle_fraction",
                "performance.collectives.0.exposed_ms",
                "comparison.recommendation",
                "suggestions.0",
                "nonsense",
            ]
            .map(String::from),
        );
        let mut from_figures = 0;
        let mut left_to_full = 0;
        for v in [
            serde_json::json!({"gpus": 16}),
            serde_json::json!({"gpus": 1024, "fabrics": ["infiniband", "roce", "roce_adaptive"]}),
            serde_json::json!({"gpus": 2048, "uncertainty": {"samples": 20}}),
            serde_json::json!({"gpus": 100_000}),
            serde_json::json!({"gpus": 4096, "gpu_model": "b200", "workload": {"preset": "moe-deepseek-v3"}}),
            serde_json::json!({"gpus": 512, "economics": {"years": 7}, "topology": {"oversubscription": 2}}),
        ] {
            let req: PlanRequest = serde_json::from_value(v.clone()).expect("request");
            let at =
                |detail| build_with(&req, &cats, Effort::default(), None, detail).expect("plan");
            let (full, figures) = (at(Detail::Full), at(Detail::Figures));
            // The plan CSV is answered from a full plan (its recommendation and rules-of-thumb
            // columns have words a figures plan leaves out); every other cell is the same.
            let mut worded = figures.clone();
            if let (Some(c), Some(w)) = (worded.comparison.as_mut(), full.comparison.as_ref()) {
                assert!(c.recommendation.to_string().is_empty(), "{v}");
                assert!(c.rules_of_thumb.is_empty(), "{v}");
                c.recommendation = w.recommendation.clone();
                c.rules_of_thumb = w.rules_of_thumb.clone();
            }
            assert_eq!(
                crate::table::plan_csv(&worded).expect("csv"),
                crate::table::plan_csv(&full).expect("csv"),
                "{v}"
            );
            let mut choices = vec![FabricChoice::Unnamed, FabricChoice::Cheapest];
            choices.extend(full.fabrics.iter().map(|f| FabricChoice::Named(f.fabric)));
            for name in &names {
                for &choice in &choices {
                    match value(&figures, name, choice) {
                        // Empty: the API asks the full plan (a part the figures leave out).
                        Ok((text, _)) if text.is_empty() => left_to_full += 1,
                        Ok(answer) => {
                            from_figures += 1;
                            let want = value(&full, name, choice).map_err(|e| e.error);
                            assert_eq!(Ok(answer), want, "{v} {name}");
                        }
                        Err(_) => left_to_full += 1,
                    }
                }
            }
        }
        // Most answers come from the figures plan; some cannot.
        assert!(
            from_figures > 1_000 && left_to_full > 0,
            "{from_figures} {left_to_full}"
        );
    }
}
