//! The spreadsheet surface: everything a `WEBSERVICE()` / `IMPORTDATA()` / Power Query URL can
//! reach with a plain GET — `GET /v1/plans`, `GET /v1/plans/bom`, `GET /v1/value`, sweeps.
//! Inputs come from the query string ([`query`]) and go through the same parsing, validation
//! and planning as `POST /v1/plans`. Every read answers GET and HEAD with `Cache-Control:
//! no-store`, an `ETag` per representation and `304` on a matching `If-None-Match`.

pub mod sweeps;

use crate::error_code::ErrorCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, web};
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa_actix_web::service_config::ServiceConfig;

use super::AppState;
pub use super::conneg::{Format, etag, negotiate, respond};
use super::error::{ApiError, Problem};
use super::middleware::with_plan_id;
use super::responses::{Busy, JsonOrCsv, PlanInvalid, QueryProblems};
use crate::fabric::Fabric;
use crate::plan::Detail;
use crate::plan::cache::CachedPlan;
use crate::table::metrics::{self, FabricChoice};
use crate::table::{BomSheet, bom_csv, bom_sheet, plan_csv};
use actix_web::web::Bytes;
/// The own (non-plan) parameter of `GET /v1/plans` and `/v1/plans/bom`.
const FORMAT_ONLY: &[&str] = &["format"];

use super::query::{
    self as query, Kind, Query, extra_param, format_param, plan_from_query, plan_from_query_at,
    plan_parameters,
};

/// Registers the spreadsheet endpoints.
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(get_plan)
        .service(get_bom)
        .service(get_value)
        .service(sweeps::get_sweep)
        .service(sweeps::post_sweep);
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

/// Query parameters of `GET /v1/plans`: the plan inputs and `format` (json, csv, xlsx).
pub struct PlanSheetParams;

impl IntoParams for PlanSheetParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let mut v = plan_parameters();
        v.push(query::plan_format_param());
        v
    }
}

/// Query parameters of `POST /v1/plans` and `POST /v1/sweeps`: `format` only (json, csv,
/// xlsx).
pub struct PostPlanParams;

impl IntoParams for PostPlanParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![query::plan_format_param()]
    }
}

/// Query parameters of a POST (`/v1/sweeps`, `/v1/fit`): `format` only, the input is the
/// body (any other name but a `_` cache buster is a 422).
pub struct PostParams;

impl IntoParams for PostParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        vec![format_param()]
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
                "The fabric whose result to read, or `cheapest` for the fabric with the lowest total cost in this plan (the comparison's `cheapest_fabric`, or the only fabric that can be built). Required by every metric but the plan-wide `comparison.break_even.*` ones (which ignore it).",
                Kind::Enum(&["infiniband", "roce", "roce_adaptive", "cheapest"]),
            ),
            extra_param(
                "errors",
                false,
                "`problem` (default): an invalid request is a 4xx problem document. `text`: it is a 200 whose body is the one-line message (`Error 422: …`) and whose `X-Error-Status` header is the status, so a spreadsheet cell (`=WEBSERVICE(…)`, which shows only `Err:540` for a 4xx) shows what is wrong.",
                Kind::Enum(&["problem", "text"]),
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
/// `catalog.version` and `plan_id`. `format=xlsx` gives a workbook with live formulas
/// (Summary, Side by side, a BOM sheet per fabric, Opex by year, Depreciation, Assumptions,
/// Uncertainty, Warnings; docs/spreadsheets.md). Responses carry `Cache-Control: no-store` and
/// an `ETag` (`"<plan_id>"` for JSON, `"<plan_id>-csv"` for CSV, `"<plan_id>-xlsx"`);
/// `If-None-Match` → 304.
#[utoipa::path(
    tag = "plans",
    params(PlanSheetParams),
    responses(super::responses::PlanAnswers, QueryProblems, PlanInvalid, Busy)
)]
#[get("/v1/plans")]
pub async fn get_plan(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    plan_sheet(
        &req,
        &state,
        "",
        // The CSV ends with the recommendation sentence, which only a full plan words.
        Detail::Full,
        |c| c.json().map_err(|e| ApiError::internal(&e)),
        |c| {
            Ok(plan_csv(&c.plan)
                .map_err(|e| ApiError::internal(&e))?
                .into())
        },
    )
    .await
}

/// A GET that plans from the query (inputs and `format`) and answers in the negotiated format,
/// `json` or `csv` making the body (from a plan at `csv_detail` for CSV); the plan's entity
/// tag gets `kind` and the format's suffix.
async fn plan_sheet(
    req: &HttpRequest,
    state: &AppState,
    kind: &str,
    csv_detail: Detail,
    json: impl FnOnce(&CachedPlan) -> Result<Bytes, ApiError>,
    csv: impl FnOnce(&CachedPlan) -> Result<Bytes, ApiError>,
) -> Result<HttpResponse, ApiError> {
    let q = Query::from_request(req)?;
    // The plan itself is also a workbook; its BOM (`kind` "-bom") is JSON or CSV.
    let format = if kind.is_empty() {
        super::conneg::negotiate_plan(req, Some(&q))?
    } else {
        negotiate(req, Some(&q))?
    };
    let detail = match format {
        Format::Csv => csv_detail,
        Format::Json | Format::Xlsx => Detail::Full,
    };
    let cached = plan_from_query_at(&q, FORMAT_ONLY, state, detail).await?;
    if format == Format::Xlsx {
        let res = super::conneg::workbook_answer(req, &cached.tag, &cached.plan)?;
        return Ok(with_plan_id(res, &cached.plan.plan_id));
    }
    let (body, media_type, suffix) = format.body(|| json(&cached), || csv(&cached))?;
    let tag = etag(&format!("{}{kind}{suffix}", cached.tag));
    Ok(with_plan_id(
        respond(req, &tag, media_type, body),
        &cached.plan.plan_id,
    ))
}

// ---- GET /v1/plans/bom ----

/// Bill of materials from query parameters (spreadsheets).
///
/// Every fabric's BOM lines as rows: fabric, SKU, vendor, category, description, quantity,
/// unit, unit and extended price (USD), unit and extended power (W), placeholder flag, source.
/// Same inputs as `GET /v1/plans`; `format=csv` or `Accept: text/csv` for CSV. `ETag`
/// `"<plan_id>-bom"` / `"<plan_id>-bom-csv"`.
#[utoipa::path(tag = "plans", params(PlanParams), responses(JsonOrCsv<BomSheet>, QueryProblems, PlanInvalid, Busy))]
#[get("/v1/plans/bom")]
pub async fn get_bom(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let internal = |e: serde_json::Error| ApiError::internal(&e);
    plan_sheet(
        &req,
        &state,
        "-bom",
        Detail::Full,
        |c| {
            Ok(crate::json::to_vec(&bom_sheet(&c.plan))
                .map_err(internal)?
                .into())
        },
        |c| {
            Ok(bom_csv(&c.plan, &bom_sheet(&c.plan))
                .map_err(internal)?
                .into())
        },
    )
    .await
}

// ---- GET /v1/value ----

/// One number from a plan, as bare text (spreadsheets).
///
/// `metric` is a dotted path into the chosen fabric's result (`tco.total_usd`,
/// `capex.total_usd`, `performance.gpu_idle_fraction`, `topology.spine_switches`,
/// `tco.by_year.0.cost_usd`) or into the comparison (`comparison.break_even.gpu_hour_usd`;
/// `comparison.deltas.<field>` with `fabric`). The answer is the number alone as `text/plain;
/// charset=utf-8`: `.` decimal point, no thousands separator, no exponent, no trailing newline —
/// `=VALUE(WEBSERVICE(…))` in LibreOffice Calc. A figure this plan has none of (no break-even
/// GPU-hour value when one fabric is cheaper at every value, no partly filled unit's leaf) is
/// an empty body with 200, as its plan CSV cell is empty. Plan inputs as in `GET /v1/plans`.
#[utoipa::path(
    tag = "plans",
    params(ValueParams),
    responses(
        (status = 200, description = "The number, e.g. `12345678.90`; empty when the plan has no value for the metric (e.g. `comparison.break_even.gpu_hour_usd` when one fabric is cheaper at every GPU-hour value).", body = String, content_type = "text/plain"),
        QueryProblems,
        (status = 422, description = "A plan input is invalid; `metric` is missing or unknown (`extra.valid_metrics` lists the valid ones) or not a number; `fabric` is missing, unknown or not in the plan.", body = Problem, content_type = "application/problem+json"),
        Busy
    )
)]
#[get("/v1/value")]
pub async fn get_value(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let q = Query::from_request(&req)?;
    let as_text = errors_as_text(&q)?;
    match value_answer(&req, &state, q).await {
        Err(e) if as_text => Ok(error_text(&e)),
        answer => answer,
    }
}

/// `errors=text` (a spreadsheet cell shows the message) or `errors=problem` (the default:
/// the status and a problem document).
fn errors_as_text(q: &Query) -> Result<bool, ApiError> {
    match q.single("errors")? {
        None => Ok(false),
        Some(v) if v.eq_ignore_ascii_case("problem") => Ok(false),
        Some(v) if v.eq_ignore_ascii_case("text") => Ok(true),
        Some(v) => Err(ApiError::field(
            "/errors",
            ErrorCode::UnknownValue,
            format!(
                "query parameter 'errors' must be text or problem (got '{}')",
                v.chars().take(40).collect::<String>()
            ),
        )),
    }
}

/// A problem as one line of text with 200, for `=WEBSERVICE(…)`, which shows only a status
/// code (`Err:540`) for anything but a 200: "Error 422: <detail>", the fields' own details
/// after it.
fn error_text(e: &ApiError) -> HttpResponse {
    let p = e.problem();
    let mut line = format!("Error {}: {}", p.status, p.detail);
    for f in p.errors.iter().take(3) {
        if !p.detail.contains(&f.detail) {
            line.push_str(&format!(
                " ({}: {})",
                f.pointer.trim_start_matches('/'),
                f.detail
            ));
        }
    }
    let line: String = line
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/plain; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("X-Error-Status", p.status.to_string()))
        .body(line)
}

async fn value_answer(
    req: &HttpRequest,
    state: &AppState,
    q: Query,
) -> Result<HttpResponse, ApiError> {
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
    let choice = match q.single("fabric")? {
        None => FabricChoice::Unnamed,
        Some(f) if f.eq_ignore_ascii_case("cheapest") => FabricChoice::Cheapest,
        Some(f) => FabricChoice::Named(Fabric::parse(f).ok_or_else(|| {
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
    let own = ["metric", "fabric", "errors"];
    // A figures plan (no BOM lines, no comparison words: about two thirds of a full plan's
    // work) has every figure a full plan has, the same, and fails as it fails. What it leaves
    // out (a BOM line's figures, the RoCE tunings side by side) and a metric's error are
    // answered from the full plan, as before. A plan with an uncertainty analysis, whose
    // samples are most of its work, is planned in full at once: the analysis never runs twice.
    let figure = if q.asks_analysis() {
        None
    } else {
        let figures = plan_from_query_at(&q, &own, state, Detail::Figures).await?;
        // An empty answer may be a part the figures plan leaves out: the full plan says.
        metrics::value(&figures.plan, &metric, choice)
            .ok()
            .filter(|(text, _)| !text.is_empty())
            .map(|answer| (figures, answer))
    };
    let (cached, (text, fabric)) = match figure {
        Some(found) => found,
        None => {
            let cached = plan_from_query(&q, &own, state).await?;
            let answer = metrics::value(&cached.plan, &metric, choice).map_err(|e| {
                let err = ApiError::from(e.error);
                match e.valid_metrics {
                    Some(valid) => err.with_extra(serde_json::json!({ "valid_metrics": valid })),
                    None => err,
                }
            })?;
            (cached, answer)
        }
    };
    let plan = &cached.plan;
    let tag = etag(&format!(
        "{}-value-{}-{}",
        cached.tag,
        metric,
        fabric.map(Fabric::as_str).unwrap_or("all")
    ));
    Ok(with_plan_id(
        respond(req, &tag, "text/plain; charset=utf-8", text.into_bytes()),
        &plan.plan_id,
    ))
}
