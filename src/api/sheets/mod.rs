//! The spreadsheet surface: everything a `WEBSERVICE()` / `IMPORTDATA()` / Power Query URL can
//! reach with a plain GET — `GET /v1/plans`, `GET /v1/plans/bom`, `GET /v1/value`, sweeps.
//! Inputs come from the query string ([`query`]) and go through the same parsing, validation
//! and planning as `POST /v1/plans`. Every read answers GET and HEAD with `Cache-Control:
//! no-store`, an `ETag` per representation and `304` on a matching `If-None-Match`.

pub mod csv;
pub mod metrics;
pub mod sweeps;

use crate::error_code::ErrorCode;
use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::Serialize;
use serde_json::Value;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use super::AppState;
pub use super::conneg::{Format, etag, negotiate, respond};
use super::error::{ApiError, Problem, QueryProblems};
use super::middleware::with_plan_id;
use crate::fabric::Fabric;
use crate::plan::{CatalogRef, Plan};
use csv::{Csv, TEXT_CSV};
use metrics::valid_metrics;
/// The own (non-plan) parameter of `GET /v1/plans` and `/v1/plans/bom`.
const FORMAT_ONLY: &[&str] = &["format"];

use super::query::{
    self as query, Kind, Query, extra_param, format_param, plan_from_query, plan_parameters,
};

/// Registers the spreadsheet endpoints.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_plan)
        .service(get_bom)
        .service(get_value)
        .service(sweeps::get_sweep)
        .service(sweeps::post_sweep);
}

fn to_json<T: Serialize>(v: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec(v).map_err(|e| ApiError::internal(&e))
}

fn to_value<T: Serialize>(v: &T) -> Result<Value, ApiError> {
    serde_json::to_value(v).map_err(|e| ApiError::internal(&e))
}

// ---- plan CSV ----

/// Columns of the plan CSV: dotted paths into a fabric's result (the same names `/v1/value`
/// takes as `metric`), then the plan-level columns.
pub const PLAN_COLUMNS: &[&str] = &[
    "fabric",
    "feasible",
    "infeasible_reason",
    "nic_sku",
    "topology.design",
    "topology.tiers",
    "topology.planes",
    "topology.switch_sku",
    "topology.leaf_switches",
    "topology.spine_switches",
    "topology.core_switches",
    "topology.links.node_leaf",
    "topology.links.leaf_spine",
    "topology.links.spine_core",
    "capex.nics_usd",
    "capex.switches_usd",
    "capex.optics_usd",
    "capex.cables_usd",
    "capex.licenses_usd",
    "capex.total_usd",
    "opex_per_year.power_usd",
    "opex_per_year.support_usd",
    "opex_per_year.staff_usd",
    "opex_per_year.licenses_usd",
    "opex_per_year.spares_usd",
    "opex_per_year.total_usd",
    "tco.years",
    "tco.total_usd",
    "performance.allreduce_time_us",
    "performance.busbw_gbytes_per_s",
    "performance.exposed_comm_ms",
    "performance.step_time_ms",
    "performance.gpu_idle_fraction",
    "gpu_idle.cost_per_year_usd",
    "gpu_idle.cost_total_usd",
    "total_cost_usd",
];

/// The uncertainty analysis' per-fabric columns (present when the plan carries an analysis):
/// probability of being cheapest, expected regret, and mean and percentiles of each amount.
pub const UNCERTAINTY_COLUMNS: &[&str] = &[
    "uncertainty.probability_cheapest",
    "uncertainty.expected_regret_usd",
    "uncertainty.total_usd.mean",
    "uncertainty.total_usd.p5",
    "uncertainty.total_usd.p50",
    "uncertainty.total_usd.p95",
    "uncertainty.tco_usd.mean",
    "uncertainty.tco_usd.p5",
    "uncertainty.tco_usd.p50",
    "uncertainty.tco_usd.p95",
    "uncertainty.capex_usd.mean",
    "uncertainty.capex_usd.p5",
    "uncertainty.capex_usd.p50",
    "uncertainty.capex_usd.p95",
    "uncertainty.gpu_idle_usd.mean",
    "uncertainty.gpu_idle_usd.p5",
    "uncertainty.gpu_idle_usd.p50",
    "uncertainty.gpu_idle_usd.p95",
];

/// The per-fabric summary of a plan as CSV (header + one row per fabric); with an
/// uncertainty analysis, its [`UNCERTAINTY_COLUMNS`] follow the plan's (empty for an
/// infeasible fabric).
pub fn plan_csv(plan: &Plan) -> Result<String, ApiError> {
    let mut header: Vec<&str> = PLAN_COLUMNS.to_vec();
    let analysis = match &plan.uncertainty {
        Some(u) => Some(to_value(&u.fabrics)?),
        None => None,
    };
    if analysis.is_some() {
        header.extend(UNCERTAINTY_COLUMNS);
    }
    header.extend([
        "cheapest",
        "catalog.id",
        "catalog.version",
        "plan_id",
        "warnings",
    ]);
    let mut out = Csv::new(&header);
    let cheapest = plan.comparison.as_ref().map(|c| c.cheapest_fabric);
    for f in &plan.fabrics {
        let v = to_value(f)?;
        let mut row: Vec<Value> = PLAN_COLUMNS
            .iter()
            .map(|c| csv::dig(&v, c).cloned().unwrap_or(Value::Null))
            .collect();
        if let Some(entries) = analysis.as_ref().and_then(Value::as_array) {
            let entry = entries.iter().find(|e| e["fabric"] == f.fabric.as_str());
            row.extend(UNCERTAINTY_COLUMNS.iter().map(|c| {
                entry
                    .and_then(|e| csv::dig(e, c.trim_start_matches("uncertainty.")))
                    .cloned()
                    .unwrap_or(Value::Null)
            }));
        }
        // An infeasible fabric has empty cost cells, its reason, and is never the cheapest.
        row.push(Value::Bool(
            f.feasible && cheapest.is_none_or(|c| c == f.fabric),
        ));
        row.push(Value::String(plan.catalog.id.clone()));
        row.push(Value::String(plan.catalog.version.clone()));
        row.push(Value::String(plan.plan_id.clone()));
        row.push(Value::String(plan.warnings.join("; ")));
        out.row(row);
    }
    Ok(out.finish())
}

// ---- OpenAPI parameter sets ----

/// Query parameters of `GET /v1/plans` and `GET /v1/plans/bom`.
pub struct PlanParams;

impl IntoParams for PlanParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let mut v = plan_parameters();
        v.push(format_param());
        v
    }
}

/// Query parameters of `GET /v1/value`.
pub struct ValueParams;

impl IntoParams for ValueParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let mut v = vec![
            query::enum_param(
                "metric",
                true,
                "Dotted path of a number in the fabric's result (`tco.total_usd`, `capex.total_usd`, \
                 `performance.gpu_idle_fraction`, `topology.spine_switches`) or in the comparison \
                 (`comparison.break_even.gpu_hour_usd`, `comparison.deltas.total_usd` with `fabric`). \
                 Array elements are also reachable by index (`tco.by_year.0.cost_usd`), though not listed. \
                 An unknown metric gets a 422 listing the valid ones.",
                &metrics::value_metrics()
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>(),
            ),
            extra_param(
                "fabric",
                true,
                "The fabric whose result to read, or `cheapest` for the fabric with the lowest total cost in this plan (the comparison's `cheapest_fabric`). Required by every metric but the plan-wide `comparison.break_even.*` ones (which ignore it).",
                Kind::Enum(&["infiniband", "roce", "roce_adaptive", "cheapest"]),
            ),
        ];
        v.extend(plan_parameters());
        v
    }
}

// ---- GET /v1/plans ----

/// Plan and compare fabrics from query parameters (spreadsheets).
///
/// The same plan as `POST /v1/plans` (same validation, same `plan_id`), with the inputs as
/// query parameters. `format=csv` or `Accept: text/csv` gives one CSV row per fabric with the
/// headline figures (columns named by their JSON path), `cheapest`, `catalog.id`,
/// `catalog.version` and `plan_id`. Responses carry `Cache-Control: no-store` and an `ETag`
/// (`"<plan_id>"` for JSON, `"<plan_id>-csv"` for CSV); `If-None-Match` → 304.
#[utoipa::path(
    tag = "plans",
    params(PlanParams),
    responses(
        (status = 200, description = "The plan (JSON), or one CSV row per fabric.", content(
            (Plan = "application/json"),
            (String = "text/csv")
        )),
        (status = 304, description = "`If-None-Match` matched the `ETag`: no body."),
        QueryProblems,
        (status = 422, description = "A parameter is invalid, missing (`gpus`), given twice, or the cluster cannot be built as asked; `errors[].pointer` names it (`economics.years` → `/economics/years`).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/plans")]
pub async fn get_plan(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let q = Query::from_request(&req)?;
    let format = negotiate(&req, Some(&q))?;
    let cached = plan_from_query(&q, FORMAT_ONLY, &state).await?;
    let plan = &cached.plan;
    let res = match format {
        Format::Json => respond(
            &req,
            &etag(&cached.tag),
            "application/json",
            cached.json().map_err(|e| ApiError::internal(&e))?,
        ),
        Format::Csv => respond(
            &req,
            &etag(&format!("{}-csv", cached.tag)),
            TEXT_CSV,
            plan_csv(plan)?.into_bytes(),
        ),
    };
    Ok(with_plan_id(res, &plan.plan_id))
}

// ---- GET /v1/plans/bom ----

/// One bill-of-materials line of one fabric: the plan's BOM line with its fabric.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BomRow {
    /// The fabric this line belongs to.
    pub fabric: Fabric,
    /// The line, as the plan's `bom[]` holds it.
    #[serde(flatten)]
    pub line: crate::plan::BomLineOut,
}

/// The bill of materials of a plan, one row per fabric and line.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BomSheet {
    /// The plan's id (as `POST /v1/plans` would give).
    pub plan_id: String,
    /// The catalog that priced it.
    pub catalog: CatalogRef,
    /// One row per fabric and BOM line.
    pub rows: Vec<BomRow>,
}

/// CSV columns of the BOM.
pub const BOM_COLUMNS: &[&str] = &[
    "fabric",
    "sku",
    "vendor",
    "category",
    "description",
    "quantity",
    "unit",
    "unit_price_usd",
    "extended_price_usd",
    "power_w",
    "extended_power_w",
    "placeholder_price",
    "source",
];

fn bom_sheet(plan: &Plan) -> BomSheet {
    let rows = plan
        .fabrics
        .iter()
        .flat_map(|f| {
            f.bom.iter().flatten().map(move |l| BomRow {
                fabric: f.fabric,
                line: l.clone(),
            })
        })
        .collect();
    BomSheet {
        plan_id: plan.plan_id.clone(),
        catalog: plan.catalog.clone(),
        rows,
    }
}

/// Bill of materials from query parameters (spreadsheets).
///
/// Every fabric's BOM lines as rows: fabric, SKU, vendor, category, description, quantity,
/// unit, unit and extended price (USD), unit and extended power (W), placeholder flag, source.
/// Same inputs as `GET /v1/plans`; `format=csv` or `Accept: text/csv` for CSV. `ETag`
/// `"<plan_id>-bom"` / `"<plan_id>-bom-csv"`.
#[utoipa::path(
    tag = "plans",
    params(PlanParams),
    responses(
        (status = 200, description = "The BOM rows (JSON), or CSV with a header row.", content(
            (BomSheet = "application/json"),
            (String = "text/csv")
        )),
        (status = 304, description = "`If-None-Match` matched the `ETag`: no body."),
        QueryProblems,
        (status = 422, description = "A parameter is invalid, missing or given twice, or the cluster cannot be built as asked; `errors[].pointer` names it.", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/plans/bom")]
pub async fn get_bom(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let q = Query::from_request(&req)?;
    let format = negotiate(&req, Some(&q))?;
    let cached = plan_from_query(&q, FORMAT_ONLY, &state).await?;
    let plan = &cached.plan;
    let sheet = bom_sheet(plan);
    let res = match format {
        Format::Json => respond(
            &req,
            &etag(&format!("{}-bom", cached.tag)),
            "application/json",
            to_json(&sheet)?,
        ),
        Format::Csv => {
            let mut out = Csv::new(BOM_COLUMNS);
            for r in &sheet.rows {
                let v = to_value(r)?;
                out.row(
                    BOM_COLUMNS
                        .iter()
                        .map(|c| csv::dig(&v, c).cloned().unwrap_or(Value::Null)),
                );
            }
            respond(
                &req,
                &etag(&format!("{}-bom-csv", cached.tag)),
                TEXT_CSV,
                out.finish().into_bytes(),
            )
        }
    };
    Ok(with_plan_id(res, &plan.plan_id))
}

// ---- GET /v1/value ----

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

fn plain_number(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(csv::number(n)),
        Value::String(s) => s
            .parse::<rust_decimal::Decimal>()
            .ok()
            .map(|d| d.to_string()),
        _ => None,
    }
}

/// One number from a plan, as bare text (spreadsheets).
///
/// `metric` is a dotted path into the chosen fabric's result (`tco.total_usd`,
/// `capex.total_usd`, `performance.gpu_idle_fraction`, `topology.spine_switches`,
/// `tco.by_year.0.cost_usd`) or into the comparison (`comparison.break_even.gpu_hour_usd`;
/// `comparison.deltas.<field>` with `fabric`). The answer is the number alone as `text/plain;
/// charset=utf-8`: `.` decimal point, no thousands separator, no exponent, no trailing newline —
/// `=VALUE(WEBSERVICE(…))` in LibreOffice Calc. Plan inputs as in `GET /v1/plans`.
#[utoipa::path(
    tag = "plans",
    params(ValueParams),
    responses(
        (status = 200, description = "The number, e.g. `12345678.90`.", body = String, content_type = "text/plain"),
        (status = 304, description = "`If-None-Match` matched the `ETag`: no body."),
        QueryProblems,
        (status = 422, description = "A plan input is invalid; `metric` is missing or unknown (`extra.valid_metrics` lists the valid ones) or not a number; `fabric` is missing, unknown or not in the plan.", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/value")]
pub async fn get_value(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let q = Query::from_request(&req)?;
    let metric = q
        .single("metric")?
        .ok_or_else(|| {
            ApiError::field(
                "/metric",
                ErrorCode::Required,
                "query parameter 'metric' is required (e.g. metric=tco.total_usd)",
            )
        })?
        .to_string();
    // `fabric=cheapest` reads the fabric the comparison recommends (cheapest total cost).
    let asked = q.single("fabric")?;
    let cheapest = asked.is_some_and(|f| f.eq_ignore_ascii_case("cheapest"));
    let fabric = match asked {
        None => None,
        Some(_) if cheapest => None,
        Some(f) => Some(Fabric::parse(f).ok_or_else(|| {
            ApiError::field(
                "/fabric",
                ErrorCode::UnknownValue,
                format!(
                    "query parameter 'fabric' must be infiniband, roce, roce_adaptive or cheapest (got '{f}')"
                ),
            )
        })?),
    };
    let mut q = q;
    if metric.starts_with("uncertainty.") {
        q.ensure_analysis();
    }
    let cached = plan_from_query(&q, &["metric", "fabric"], &state).await?;
    let plan = &cached.plan;
    let fabric = if cheapest {
        Some(
            plan.comparison
                .as_ref()
                .map(|c| c.cheapest_fabric)
                .or_else(|| plan.fabrics.first().map(|f| f.fabric))
                .ok_or_else(|| {
                    ApiError::field("/fabric", ErrorCode::NotInPlan, "the plan has no fabric")
                })?,
        )
    } else {
        fabric
    };
    // The plan as a JSON tree, built once per remembered plan (not per request).
    let tree = cached.tree().map_err(|e| ApiError::internal(&e))?;
    let comparison = tree.get("comparison").filter(|c| !c.is_null());
    let fabric_json = match fabric {
        Some(f) => match plan.fabrics.iter().position(|p| p.fabric == f) {
            Some(i) => Some(&tree["fabrics"][i]),
            None => {
                return Err(ApiError::field(
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
    };
    let uncertainty = &tree["uncertainty"];
    let unknown = |sample: &Value| {
        let valid = valid_metrics(sample, comparison, uncertainty);
        ApiError::field(
            "/metric",
            ErrorCode::UnknownMetric,
            format!("query parameter 'metric': unknown metric '{metric}'; extra.valid_metrics lists the valid ones"),
        )
        .with_extra(serde_json::json!({ "valid_metrics": valid }))
    };
    // A fabric's tree, to list the valid metrics in an error.
    let sample = fabric_json.unwrap_or(&tree["fabrics"][0]);
    let found = if let Some(rest) = metric.strip_prefix("uncertainty.") {
        // Per fabric (`probability_cheapest`, `total_usd.p95`, …) or plan-wide (`samples`,
        // `gap_at_modes_usd`).
        let first = rest.split('.').next().unwrap_or("");
        let entries = uncertainty["fabrics"].as_array();
        let per_fabric = entries
            .and_then(|e| e.first())
            .is_some_and(|e| e.get(first).is_some());
        if per_fabric {
            let Some(f) = fabric else {
                return Err(ApiError::field(
                    "/fabric",
                    ErrorCode::Required,
                    format!("query parameter 'fabric' is required for metric '{metric}'"),
                ));
            };
            let entry = entries
                .into_iter()
                .flatten()
                .find(|e| e["fabric"] == f.as_str())
                .ok_or_else(|| {
                    ApiError::field(
                        "/fabric",
                        ErrorCode::NotInPlan,
                        format!(
                            "query parameter 'fabric': {} is not among the analysed (feasible) fabrics",
                            f.as_str()
                        ),
                    )
                })?;
            csv::dig(entry, rest)
        } else {
            csv::dig(uncertainty, rest)
        }
    } else if let Some(rest) = metric.strip_prefix("comparison.") {
        let Some(c) = comparison else {
            return Err(ApiError::field(
                "/metric",
                ErrorCode::NoComparison,
                "query parameter 'metric': a comparison needs at least two fabrics",
            ));
        };
        let found = dig_comparison(c, rest, fabric);
        if found.is_none()
            && fabric.is_none()
            && c.get(rest.split('.').next().unwrap_or(""))
                .is_some_and(Value::is_array)
        {
            return Err(ApiError::field(
                "/fabric",
                ErrorCode::Required,
                format!("query parameter 'fabric' is required for metric '{metric}'"),
            ));
        }
        found
    } else {
        let Some(fj) = fabric_json else {
            return Err(ApiError::field(
                "/fabric",
                ErrorCode::Required,
                format!("query parameter 'fabric' is required for metric '{metric}'"),
            ));
        };
        csv::dig(fj, &metric)
    };
    let Some(found) = found else {
        return Err(unknown(sample));
    };
    let Some(text) = plain_number(found) else {
        let what = if found.is_null() {
            "has no value in this plan"
        } else {
            "is not a number"
        };
        return Err(ApiError::field(
            "/metric",
            ErrorCode::NotNumeric,
            format!("query parameter 'metric': '{metric}' {what}"),
        )
        .with_extra(
            serde_json::json!({ "valid_metrics": valid_metrics(sample, comparison, uncertainty) }),
        ));
    };
    let tag = etag(&format!(
        "{}-value-{}-{}",
        cached.tag,
        metric,
        fabric.map(Fabric::as_str).unwrap_or("all")
    ));
    Ok(with_plan_id(
        respond(&req, &tag, "text/plain; charset=utf-8", text.into_bytes()),
        &plan.plan_id,
    ))
}
