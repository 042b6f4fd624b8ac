//! The spreadsheet surface: everything a `WEBSERVICE()` / `IMPORTDATA()` / Power Query URL can
//! reach with a plain GET — `GET /v1/plans`, `GET /v1/plans/bom`, `GET /v1/value`, sweeps.
//! Inputs come from the query string ([`query`]) and go through the same parsing, validation
//! and planning as `POST /v1/plans`. Every read answers GET and HEAD with `Cache-Control:
//! no-store`, an `ETag` per representation and `304` on a matching `If-None-Match`.

pub mod csv;
pub mod metrics;
pub mod sweeps;

use crate::error_code::ErrorCode;
use actix_web::http::header::{
    self, Accept, CacheControl, CacheDirective, ETag, EntityTag, Header, IfNoneMatch, Quality,
};
use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::Serialize;
use serde_json::Value;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::{IntoParams, ToSchema};
use utoipa_actix_web::service_config::ServiceConfig;

use super::AppState;
use super::error::{ApiError, Problem, QueryProblems};
use super::middleware::with_plan_id;
use crate::fabric::Fabric;
use crate::plan::{CatalogRef, Plan};
use csv::{Csv, TEXT_CSV};
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

// ---- content negotiation and HTTP caching ----

/// A representation a read endpoint can return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
}

/// `format=csv|json` wins; otherwise `Accept` ([`preferred`]); otherwise JSON.
pub fn negotiate(req: &HttpRequest, q: Option<&Query>) -> Result<Format, ApiError> {
    if let Some(q) = q
        && let Some(f) = q.single("format")?
    {
        return match f.to_ascii_lowercase().as_str() {
            "csv" => Ok(Format::Csv),
            "json" => Ok(Format::Json),
            other => Err(ApiError::field(
                "/format",
                ErrorCode::UnknownValue,
                format!("query parameter 'format' must be 'json' or 'csv' (got '{other}')"),
            )),
        };
    }
    Ok(
        match preferred(
            req,
            &[actix_web::mime::APPLICATION_JSON, actix_web::mime::TEXT_CSV],
        ) {
            1 => Format::Csv,
            _ => Format::Json,
        },
    )
}

/// Which of `offered` (the first is the default) the request's `Accept` prefers. The header is
/// parsed by actix-web's typed `Accept` (media ranges with their `Quality`); each offered type
/// takes the quality of the most specific range that covers it (RFC 9110 §12.5.1: `text/csv`
/// over `text/*` over `*/*`, so `application/json;q=0, */*;q=0.1` refuses JSON and accepts
/// CSV); the highest quality above zero wins, ties going to the earlier offered type. No
/// `Accept`, an unparsable one, or one that accepts none: the default.
pub fn preferred(req: &HttpRequest, offered: &[actix_web::mime::Mime]) -> usize {
    use actix_web::mime::{Mime, STAR};
    let Ok(Accept(ranges)) = Accept::parse(req) else {
        return 0;
    };
    let specificity = |r: &Mime| match (r.type_() == STAR, r.subtype() == STAR) {
        (true, _) => 0,
        (false, true) => 1,
        (false, false) => 2,
    };
    let quality = |m: &Mime| {
        ranges
            .iter()
            .filter(|r| {
                (r.item.type_() == STAR || r.item.type_() == m.type_())
                    && (r.item.subtype() == STAR || r.item.subtype() == m.subtype())
            })
            .max_by_key(|r| (specificity(&r.item), r.quality))
            .map_or(Quality::ZERO, |r| r.quality)
    };
    let mut best = (0, Quality::ZERO);
    for (i, m) in offered.iter().enumerate() {
        let q = quality(m);
        if q > best.1 {
            best = (i, q);
        }
    }
    best.0
}

/// A strong entity tag.
pub fn etag(id: &str) -> EntityTag {
    EntityTag::new_strong(id.to_string())
}

/// True when the request's `If-None-Match` (typed) names this tag (weak comparison, as RFC
/// 9110 asks for `If-None-Match`) or is `*`.
fn matches_if_none_match(req: &HttpRequest, tag: &EntityTag) -> bool {
    match IfNoneMatch::parse(req) {
        Ok(IfNoneMatch::Any) => true,
        Ok(IfNoneMatch::Items(tags)) => tags.iter().any(|t| t.weak_eq(tag)),
        Err(_) => false,
    }
}

/// 200 with the body, or 304 when `If-None-Match` matches; `Cache-Control: no-store` and the
/// `ETag` either way.
pub fn respond(
    req: &HttpRequest,
    tag: &EntityTag,
    content_type: &str,
    body: impl actix_web::body::MessageBody + 'static,
) -> HttpResponse {
    let not_modified = matches_if_none_match(req, tag);
    let mut res = if not_modified {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    res.insert_header(ETag(tag.clone()))
        .insert_header(CacheControl(vec![CacheDirective::NoStore]));
    if not_modified {
        return res.finish();
    }
    res.insert_header((header::CONTENT_TYPE, content_type))
        .body(body)
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
                metrics::VALUE_METRICS,
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
fn valid_metrics(fabric: &Value, comparison: Option<&Value>, uncertainty: &Value) -> Vec<String> {
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
            metrics::VALUE_METRICS
                .iter()
                .filter(|m| m.starts_with("uncertainty."))
                .map(|m| m.to_string()),
        );
    } else {
        numeric_paths(uncertainty, "uncertainty", &mut out);
        if let Some(first) = uncertainty.get("fabrics").and_then(|d| d.get(0)) {
            numeric_paths(first, "uncertainty", &mut out);
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::CatalogSet;

    /// The documented enum and what plans actually hold must not drift apart (two- and
    /// three-tier plans, all fabrics).
    #[test]
    fn documented_metrics_are_exactly_the_numeric_leaves() {
        let cats = CatalogSet::embedded().expect("embedded catalog");
        for gpus in [64, 1024, 65_536] {
            let req: crate::plan::PlanRequest = serde_json::from_value(serde_json::json!({
                "gpus": gpus, "fabrics": ["infiniband", "roce", "roce_adaptive"],
                "uncertainty": {"samples": 5}
            }))
            .expect("request");
            let plan = crate::plan::build_plan(&req, &cats).expect("plan");
            let comparison = serde_json::to_value(plan.comparison.as_ref()).expect("json");
            let uncertainty = serde_json::to_value(plan.uncertainty.as_ref()).expect("json");
            for f in &plan.fabrics {
                let fj = serde_json::to_value(f).expect("json");
                let mut got = valid_metrics(&fj, Some(&comparison), &uncertainty);
                got.sort();
                let mut want: Vec<String> = metrics::VALUE_METRICS
                    .iter()
                    .map(|m| m.to_string())
                    .collect();
                want.sort();
                assert_eq!(got, want, "{gpus} GPUs, {:?}", f.fabric);
            }
        }
    }

    #[test]
    fn accept_prefers_csv_only_when_asked() {
        let pick = |accept: &str| {
            let req = actix_web::test::TestRequest::default()
                .insert_header((header::ACCEPT, accept))
                .to_http_request();
            negotiate(&req, None).expect("format")
        };
        assert_eq!(pick("text/csv"), Format::Csv);
        assert_eq!(pick("*/*"), Format::Json);
        assert_eq!(pick("application/json, text/csv;q=0.5"), Format::Json);
        assert_eq!(pick("text/csv, application/json;q=0.5"), Format::Csv);
        assert_eq!(
            pick("text/html,application/xhtml+xml,*/*;q=0.8"),
            Format::Json
        );
        assert_eq!(pick("text/*"), Format::Csv);
        assert_eq!(pick("application/json;q=0, text/csv;q=0.1"), Format::Csv);
        assert_eq!(pick("text/html"), Format::Json);
        assert_eq!(pick("not a media type"), Format::Json);
        let none = actix_web::test::TestRequest::default().to_http_request();
        assert_eq!(negotiate(&none, None).expect("format"), Format::Json);
    }

    #[test]
    fn if_none_match_is_typed_and_weak() {
        let tag = etag("abc");
        let with = |v: &str| {
            actix_web::test::TestRequest::default()
                .insert_header((header::IF_NONE_MATCH, v))
                .to_http_request()
        };
        assert!(matches_if_none_match(&with("\"abc\""), &tag));
        assert!(matches_if_none_match(&with("W/\"abc\""), &tag));
        assert!(matches_if_none_match(&with("\"x\", \"abc\""), &tag));
        assert!(matches_if_none_match(&with("*"), &tag));
        assert!(!matches_if_none_match(&with("\"abcd\""), &tag));
        assert!(
            !matches_if_none_match(&with("abc"), &tag),
            "unquoted is not a tag"
        );
    }
}
