//! `POST /v1/plans`.

use actix_web::{HttpRequest, HttpResponse, post, web};

use super::AppState;
use super::error::ApiError;
use super::extract::ValidJson;
use super::middleware::with_plan_id;
use super::responses::{BodyProblems, Busy, PlanInvalid};
use crate::plan::{PlanError, PlanRequest};

impl From<PlanError> for ApiError {
    fn from(e: PlanError) -> ApiError {
        if e.code.status() == 422 {
            ApiError::field(&e.pointer, e.code, e.detail)
        } else {
            // Not an invalid input (an analysis past the deadline): its own status, and a 503
            // says when to retry (a busy service is one reason).
            let out = ApiError::new(e.code, e.detail);
            if e.code.status() == 503 {
                out.with_retry_after(1)
            } else {
                out
            }
        }
    }
}

/// Plan and compare fabrics.
///
/// Sizes each requested fabric (leaf/spine/core switches, NICs, optics per link end, cables)
/// from the pricing catalog, prices the bill of materials, runs the all-reduce model (time in
/// µs, bandwidth in GB/s, exposed communication in ms, GPU idle fraction), and costs it over
/// `economics.years` (capex, opex per year, TCO, GPU-idle cost, all USD as decimal strings),
/// with a side-by-side comparison. Every input but `gpus` has a documented default; `inputs`
/// echoes them all. Same request + same catalog ⇒ same `plan_id`. `Accept: text/csv` gives the
/// per-fabric summary as CSV (the columns of `GET /v1/plans?format=csv`), as does `?format=csv`;
/// no other query parameter is read (a 422 names it).
#[utoipa::path(
    tag = "plans",
    params(super::sheets::PostPlanParams),
    request_body(content = PlanRequest, description = "The cluster and assumptions; only `gpus` is required.", content_type = "application/json"),
    responses(super::responses::PlanAnswers, BodyProblems, PlanInvalid, Busy)
)]
#[post("/v1/plans")]
pub async fn post_plan(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: ValidJson<PlanRequest>,
) -> Result<HttpResponse, ApiError> {
    // The CSV ends with the recommendation sentence, which only a full plan words. A plan
    // error still comes before a `406` for `Accept`.
    let q = super::query::Query::for_post(&req)?;
    let format = super::conneg::negotiate_plan(&req, Some(&q));
    let cached = super::plan_at(&state, &body.0, crate::plan::Detail::Full).await?;
    if let Ok(super::conneg::Format::Xlsx) = format {
        let res = super::conneg::workbook_answer(&req, &cached.tag, &cached.plan)?;
        return Ok(with_plan_id(res, &cached.plan.plan_id));
    }
    plan_answer(format, &cached)
}

/// A plan as its answer: its JSON, or its CSV (`format`), with the plan id for the access log.
pub fn plan_answer(
    format: Result<super::conneg::Format, ApiError>,
    cached: &crate::plan::cache::CachedPlan,
) -> Result<HttpResponse, ApiError> {
    let plan = &cached.plan;
    let (body, media_type, _) = format?.body(
        || cached.json().map_err(|e| ApiError::internal(&e)),
        || {
            Ok(crate::table::plan_csv(plan)
                .map_err(|e| ApiError::internal(&e))?
                .into())
        },
    )?;
    let res = HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .content_type(media_type)
        .body(body);
    Ok(with_plan_id(res, &plan.plan_id))
}
