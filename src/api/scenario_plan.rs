//! `GET /v1/scenarios/{id}/plan`: a saved scenario's plan as JSON, CSV or the report page.
//! Its own module because it uses both the scenarios' store ([`super::scenarios`]) and the
//! report page ([`super::report`]), and the report page's forms use the scenarios.

use actix_web::{HttpRequest, HttpResponse, get, web};
use utoipa::IntoParams;

use super::AppState;
use super::auth::caller;
use super::error::{ApiError, ErrorCode, Problem};
use super::query::Query;
use super::responses::{KeyProblems, NoScenario};
use super::scenarios::{scenario_id, stored_request};
use crate::plan::Plan;
use crate::store::keys::Scope;

/// Parameters of `GET /v1/scenarios/{id}/plan`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct PlanParams {
    /// Which revision (default: the current one).
    revision: Option<i64>,
    /// `json` (default), `csv`, `xlsx` (a workbook with live formulas), or `html` (the report
    /// page).
    format: Option<String>,
}

/// A saved scenario's plan.
///
/// Recomputed from the stored request on the pinned catalog version: the same `plan_id` and
/// the same figures as when it was saved, after the catalog changed. JSON, or CSV like
/// `POST /v1/plans`, or its workbook (`format=xlsx`), or the report page (`format=html`, or
/// `Accept: text/html`). Needs a key.
#[utoipa::path(
    tag = "scenarios",
    params(("id" = String, Path, description = "Scenario id."), PlanParams),
    security(("api_key" = [])),
    responses(
        KeyProblems,
        super::responses::JsonCsvOrPage<Plan>,
        NoScenario,
        (status = 422, description = "The stored catalog version no longer validates, or an invalid parameter.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/scenarios/{id}/plan")]
pub async fn scenario_plan(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = caller(&req, &state, Scope::Read).await?;
    let id = scenario_id(&id)?;
    let q = Query::from_request(&req)?;
    if let Some((k, _)) = q
        .pairs
        .iter()
        .find(|(k, _)| k != "format" && k != "revision" && !k.starts_with('_'))
    {
        return Err(ApiError::field(
            &format!("/{k}"),
            ErrorCode::UnknownField,
            format!("query parameter '{k}' is not read here; this takes revision and format"),
        ));
    }
    let revision = match q.single("revision")? {
        None => None,
        Some(t) => Some(super::diff::revision_number(t).ok_or_else(|| {
            ApiError::field(
                "/revision",
                ErrorCode::Range,
                "query parameter 'revision' must be a whole number from 1",
            )
        })?),
    };
    use super::conneg::Format;
    let format = super::conneg::choose(
        &req,
        Some(&q),
        &[
            (
                actix_web::mime::APPLICATION_JSON,
                "json",
                Some(Format::Json),
            ),
            (actix_web::mime::TEXT_CSV, "csv", Some(Format::Csv)),
            (super::conneg::xlsx_mime(), "xlsx", Some(Format::Xlsx)),
            (actix_web::mime::TEXT_HTML, "html", None),
        ],
    )?;
    let Some(format) = format else {
        return super::report::scenario_page(&state, &key.team, id, revision).await;
    };
    let (request, _) = stored_request(&state, &key.team, id, revision).await?;
    let cached = super::plan_at(&state, &request, crate::plan::Detail::Full).await?;
    if format == Format::Xlsx {
        return super::conneg::workbook_answer(&req, &cached.tag, &cached.plan);
    }
    super::plans::plan_answer(Ok(format), &cached)
}
